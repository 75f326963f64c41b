"""The offline planner reads a refusal from its facts, never its message: rewording the
message changes no answer, each refusal code is said in the person's language (English
and Russian), an unknown page is "this page", and a refusal it cannot read is said as a
failure."""

from __future__ import annotations

from typing import Any

import pytest

from app.facts import REFUSAL_CODES
from tests.planner.planner_turns import after_tool, refused

REFUSALS: dict[str, dict[str, Any]] = {  # code -> the facts the guard would state
    "permission_denied": {"role": "analyst", "required_role": "admin"},
    "not_available": {"page": "dashboard"},
    "unknown_tool": {"tools": ["search_dashboards"]},
    "invalid_arguments": {"errors": ["target_env: Field required"]},
    "environment": {"env_id": "qa", "errors": ["environment 'qa' is not configured"]},
    "maintenance": {"env_id": "prod", "reason": "upgrade"},
    "preflight_failed": {"errors": ["dashboard 42 does not exist in dev"]},
    "repeated_call": {},
    "one_at_a_time": {"tools": ["list_environments"]},
    "cancelled": {"reason": "wrong target"},
    "changed_since": {"errors": ["dashboard “Sales” was changed since"]},
    "not_undoable": {"reason": "expired"},
    "account_not_linked": {"env_id": "prod"},
    "link_expired": {"env_id": "prod", "reason": "Error loading the user"},
    "superset_denied": {"env_id": "prod", "reason": "You need access to the sales table"},
    "approval_denied": {"by": "bob", "reason": "not during the sale"},
    "approval_stale": {"errors": ["the preflight's findings (what the call would change)"]},
}
REWORDED = "Something entirely different — permission denied; not available (dataset page)"


@pytest.mark.parametrize("lang_request", ["deploy to prod", "задеплой на прод"])
@pytest.mark.parametrize("code", REFUSAL_CODES)
def test_rewording_a_refusals_message_changes_no_answer(code, lang_request):
    assert set(REFUSALS) == set(REFUSAL_CODES)
    facts = REFUSALS[code]
    args = {"dashboard_id": "42", "target_env": "prod"}
    plain = after_tool(refused(code, args=args, **facts), lang_request)
    reworded = after_tool(refused(code, args=args, message=REWORDED, **facts), lang_request)
    assert plain == reworded
    assert "was refused" not in plain and "REFUSED" not in plain and "{" not in plain


@pytest.mark.parametrize(
    ("code", "request_text", "said"),
    [
        ("permission_denied", "deploy to prod", "needs the admin role; yours is analyst"),
        ("permission_denied", "задеплой на прод", "нужна роль admin, а у вас — analyst"),
        ("not_available", "deploy to prod", "On a dashboard page I can't deploy a dashboard"),
        ("not_available", "задеплой на прод", "На странице дашборда я не могу"),
        ("unknown_tool", "deploy to prod", "I don't have a tool for that."),
        ("invalid_arguments", "задеплой на прод", "target\\_env: Field required"),
        ("environment", "deploy to prod", "the environment qa is not configured or not usable"),
        ("environment", "задеплой на прод", "окружение qa не настроено или недоступно"),
        ("maintenance", "deploy to prod", "prod is in a maintenance window (upgrade)"),
        ("maintenance", "задеплой на прод", "prod в режиме обслуживания (upgrade)"),
        ("preflight_failed", "deploy to prod", "found problems: dashboard 42 does not exist"),
        ("repeated_call", "deploy to prod", "was already run in this turn"),
        ("repeated_call", "задеплой на прод", "уже выполнялось в этом ходе"),
        ("cancelled", "deploy to prod", "Cancelled — not deploying dashboard 42 to prod: wrong"),
        ("cancelled", "задеплой на прод", "Вы отменили деплой дашборда 42 на prod: wrong target."),
        # acting as the person: connect the account, or Superset's own words
        ("account_not_linked", "deploy to prod", "your Superset account there is not connected"),
        ("account_not_linked", "задеплой на прод", "учётная запись Superset там ещё не подключена"),
        ("link_expired", "deploy to prod", "Superset no longer accepts your connected account"),
        ("superset_denied", "deploy to prod", "for your account in prod: You need access to the"),
        ("superset_denied", "задеплой на прод", "учётной записи в prod: You need access to the"),
        ("approval_denied", "deploy to prod", "bob denied it: not during the sale."),
        ("approval_denied", "задеплой на прод", "bob отклонил(а) запрос: not during the sale."),
        ("approval_stale", "deploy to prod", "changed since the request, so I did not run it"),
    ],
)
def test_each_refusal_says_its_facts_in_the_persons_language(code, request_text, said):
    text = after_tool(refused(code, **REFUSALS[code]), request_text)
    assert said in text


def test_a_page_the_planner_does_not_know_is_this_page():
    text = after_tool(refused("not_available", page=None), "deploy to prod")
    assert text.startswith("On this page I can't deploy a dashboard")


def test_a_refusal_the_planner_cannot_read_is_said_as_a_failure():
    text = after_tool('REFUSED: {"code": "quota", "message": "daily quota used up"}', "deploy")
    assert text.startswith("I couldn't deploy a dashboard to another environment: daily quota")
