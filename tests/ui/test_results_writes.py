"""What writes show, in English and Russian (NiceGUI user simulation, fake core yielding
the real views of real results): a delete's facts without the backup's path, a task's
state and progress in the store's own words and colour, a deploy's diff of what changed,
and the confirmation card's preflight as a diff table."""

from __future__ import annotations

import pytest
from nicegui import ui
from nicegui.testing import User

from tests.ui.made_events import confirm_event, done


@pytest.mark.parametrize(("lang", "label"), [("en", "Backup"), ("ru", "Резервная копия")])
async def test_a_delete_shows_its_facts_and_never_the_backup_path(show, lang, label) -> None:
    result = {
        "task_id": "t1",
        "deleted": {"id": 4, "title": "Browser Throwaway"},
        "env_id": "prod",
        "backup_id": "abf0123",
        "backup_path": "/srv/data/backups/prod/x.zip",
        "message": "Deleted … backup abf0123 at /srv/data/backups/prod/x.zip",
    }
    user = await show("delete_dashboard", result, lang)
    await user.should_see(label)
    await user.should_see("abf0123")
    await user.should_not_see("/srv/data")


@pytest.mark.parametrize(("lang", "state"), [("en", "running"), ("ru", "выполняется")])
async def test_tasks_show_their_state_and_progress(show, lang, state) -> None:
    task = {"task_id": "93ff0a1b", "kind": "migration", "status": "running", "step": 1, "total": 4}
    user = await show("get_task_status", {"task": task}, lang)
    with user.scope(marker="result-tasks"):
        await user.should_see(state)
        await user.should_see("1/4")
        await user.should_see(kind=ui.linear_progress)


# the task store's states: (English, Russian), the chip's colour
TASK_STATES = {
    "queued": ("queued", "в очереди", "gray"),
    "succeeded": ("finished", "завершена", "green"),
    "failed": ("failed", "ошибка", "red"),
    "interrupted": ("interrupted", "прервана", "amber"),
}


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("status", list(TASK_STATES))
async def test_a_tasks_state_is_the_stores_own_in_the_pages_language(show, lang, status) -> None:
    en, ru, tone = TASK_STATES[status]
    state = ru if lang == "ru" else en
    """The task store's states (queued, running, succeeded, failed, interrupted), each in
    the page's language and its colour; a finished task's last message ("done") is not
    repeated under it."""
    task = {
        "task_id": "93ff0a1b",
        "kind": "backup",
        "status": status,
        "step": 2,
        "total": 2,
        "message": "done",
    }
    user = await show("get_task_status", {"task": task}, lang)
    with user.scope(marker="result-tasks"):
        await user.should_see(state)
        if status != "queued":  # a queued task still shows its progress and message
            await user.should_not_see("done")
            await user.should_not_see(kind=ui.linear_progress)
    chip = next(
        el
        for el in user.find(marker="result-tasks").elements.pop().descendants()
        if isinstance(el, ui.label) and el.text == state
    )
    assert any(c.startswith(f"bg-{tone}-") for c in chip.classes), chip.classes


DEPLOYED = {
    "source_env": "dev",
    "target_env": "prod",
    "dashboards": [{"title": "Sales", "action": "overwritten", "target_id": 12}],
    "charts": {"overwrite": 3},
}


@pytest.mark.parametrize(("lang", "action"), [("en", "overwrite"), ("ru", "перезаписать")])
async def test_a_deploy_shows_what_changed_as_a_diff(show, lang, action):
    user = await show("deploy_dashboard", DEPLOYED, lang)
    with user.scope(marker="diff-table"):
        await user.should_see("Sales")
        await user.should_see(action)
        await user.should_see("prod")


PREFLIGHT = {
    "source_env": "dev",
    "target_env": "prod",
    "dashboards": [{"name": "Sales", "uuid": "u1", "action": "overwrite"}],
    "charts": [{"name": "Revenue", "uuid": "u2", "action": "create"}],
    "datasets": [],
    "databases": [],
    "errors": [],
}


@pytest.mark.parametrize(
    ("lang", "title", "create"),
    [("en", "What will change", "create"), ("ru", "Что изменится", "создать")],
)
async def test_the_confirmation_card_shows_the_preflight_as_a_diff_table(
    user: User, core, sign_in, lang, title, create
) -> None:
    core.replies = [
        confirm_event("write_prod", env="prod", details=PREFLIGHT),
        done("awaiting_confirmation"),
    ]
    await sign_in("admin", target=f"/agent?lang={lang}")
    user.find(marker="chat-input").type("deploy").trigger("keydown.enter")
    await user.should_see(marker="confirmation-card", retries=30)
    with user.scope(marker="preflight-diff"):
        await user.should_see(title + ": dev → prod")
        await user.should_see("Revenue")
        await user.should_see(create)
    await user.should_not_see(marker="confirm-details")  # no JSON dump of the same
