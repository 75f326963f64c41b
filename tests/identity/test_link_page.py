"""The /agent page on a person environment: a request with no link ends with "Connect your
Superset account"; its form links the account (the password never echoes, never enters
the chat, its history or the page's storage), and the same request then runs as them."""

from __future__ import annotations

from pathlib import Path

from nicegui import ui
from nicegui.testing import User

from app.parts import Parts
from tests.fixtures.pages import SignIn, page_model
from tests.identity.people_fake import PeopleSuperset
from tests.identity.test_accounts_api import people, served_people  # noqa: F401  (fixtures)


async def _ask(user: User, text: str) -> None:
    user.find(marker="chat-input").type(text)
    user.find(marker="send-button").click()


async def test_the_link_offer_opens_the_form_and_the_request_then_runs_as_the_person(
    served_people: PeopleSuperset,  # noqa: F811
    user: User,
    sign_in: SignIn,
    app_parts: Parts,
    tmp_path: Path,
) -> None:
    await sign_in("analyst", username="carol")
    await _ask(user, "list dashboards in dev")
    await user.should_see(marker="link-account", retries=100)
    assert served_people.seen == []  # refused before anything reached Superset
    user.find(marker="link-account").click()
    await user.should_see("The agent will act in “dev” as this account", retries=50)
    user.find(marker="link-username").type("ann")
    user.find(marker="link-password").type("wrong-pw")
    user.find(kind=ui.button, marker="link-connect").click()
    await user.should_see("Not connected", retries=100)
    (password,) = user.find(marker="link-password").elements
    assert password.value == ""  # emptied after the attempt
    assert "password" in password.props.get("type", "password")
    user.find(marker="link-password").type("ann-pw-1")
    user.find(kind=ui.button, marker="link-connect").click()
    await user.should_see("Connected as ann in dev", retries=100)
    await _ask(user, "list dashboards in dev")
    await user.should_see("ann's board", retries=100)
    said = " ".join(getattr(m, "text", "") for m in page_model(user).items)
    assert "ann-pw-1" not in said and "wrong-pw" not in said
    for path in tmp_path.rglob("*"):  # the data dir, its database and WAL, page storage
        if path.is_file():
            data = path.read_bytes()
            assert b"ann-pw-1" not in data and b"wrong-pw" not in data, path
