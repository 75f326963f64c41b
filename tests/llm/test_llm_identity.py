"""The real local model on an environment that acts as each person, asked by someone
with no linked Superset account: the turn ends with the typed ``link_account`` offer and
a sentence, never a generic error (whatever the model wrote in between)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PASSWORD, product
from tests.llm.conftest import answered_by, ask, audit, token
from tests.llm_fixtures import LLM_TEST_TIMEOUT_S
from tests.server_proc import Server, add_user

pytestmark = [pytest.mark.llm, pytest.mark.superset, pytest.mark.timeout(LLM_TEST_TIMEOUT_S)]


@pytest.fixture(scope="module")
def person_product(
    local_llm: Any, superset_sandbox: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The product answered by the local model, with one more environment, ``people``:
    the sandbox's dev acting as each person."""
    url = superset_sandbox.env("dev").url

    def people(envs_file: Path) -> None:
        with envs_file.open("a") as f:
            f.write(f'\n[[environment]]\nid = "people"\nurl = "{url}"\n'
                    'identity = "person"\ntier = "dev"\n')  # fmt: skip

    with product(tmp_path_factory.mktemp("llm-people"), superset_sandbox,
                 add_environments=people, **answered_by(local_llm)) as srv:  # fmt: skip
        add_user(srv.env, "ana", "analyst", PASSWORD)
        yield srv


#: tools that never sign in to Superset (they may run, whatever the link)
NO_SIGN_IN = {"list_environments", "show_capabilities", "get_task_status", "list_backups"}


def test_no_link_ends_with_the_link_offer_and_a_sentence(person_product: Server) -> None:
    analyst = token(person_product, "ana")
    turn = ask(person_product, analyst, "find dashboards about sales", env_id="people")

    turn.ended_well()
    assert turn.said().strip()  # a sentence for the person
    offers = [o for o in turn.of("message")[-1]["offers"] if o["kind"] == "link_account"]
    assert [o["env_id"] for o in offers] == ["people"], turn.events
    # whatever the model called: a call that signs in to "people" met the guard's refusal,
    # and nothing reached Superset as anyone
    refused = [e["refusal"] for e in turn.of("error") if e.get("refusal")]
    assert all(r["code"] == "account_not_linked" for r in refused if r.get("env_id") == "people")
    admin = token(person_product, "ops")
    rows = audit(person_product, admin, turn.conv_id)
    on_people = [r for r in rows if r["kind"] == "executed" and r["env"] == "people"]
    assert [r["tool"] for r in on_people if r["tool"] not in NO_SIGN_IN] == [], rows
