"""A tool declared only by its spec (``specs.spec(...)``) and its implementation
(``@family.implements(spec)``), here, in this test module, in a catalog built for the
test (nothing in app/ names it), is listed by the policy pipeline for the roles it fits,
reached by the offline planner from plain English and Russian with its arguments filled,
run through the guard and the tool node, and listed by the HTTP tool list: adding a tool
touches its family's folder (``app/tools/<family>/``) and its tests only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from nicegui.testing import User
from pydantic import Field

from app.agent.core import offered_tools
from app.agent.prompt import build_system_prompt
from app.agent.rules import Rules
from app.auth import Principal
from app.context import inject_uicontext
from app.planner import OfflinePlanner
from app.policy import Policy, build_tool_pipeline
from app.tools.args import DASHBOARD_ID, ToolArgs, env_field
from app.tools.catalog import FAMILIES
from app.tools.declare import Family
from app.tools.kit import Implementations, ToolDeps
from app.tools.registry import catalog_of, implementations, join
from tests.agent.harness import first

specs = Family("extra")  # what app/tools/extra/spec.py would hold


class SessionArgs(ToolArgs):
    env_id: str | None = env_field()


class StarArgs(ToolArgs):
    dashboard_id: str = Field(description=DASHBOARD_ID, min_length=1)
    env_id: str | None = env_field()


my_session_spec = specs.spec(
    "my_session",
    args=SessionArgs,
    risk="read",
    description="""Shows the person's session here: their user id, their role and the
    environment the call resolved to. Use when the user asks about their session.
    Returns user, role and env.""",
    en=("show your session here", "Show my session", "Show your session in {env}"),
    ru=("показать вашу сессию здесь", "Покажи мою сессию", "Показать вашу сессию в {env}"),
    triggers=("my session", "сесси*"),
    presentation="facts",
)
star_dashboard_spec = specs.spec(
    "star_dashboard",
    args=StarArgs,
    risk="write",
    description="""Stars one dashboard for the person, so it shows first in their lists.
    Use when the user asks to star or favourite a dashboard. Returns the starred dashboard
    id.""",
    en=("star a dashboard", "Star this dashboard", "Star dashboard {dashboard_id} in {env}"),
    ru=(
        "добавить дашборд в избранное",
        "Добавь этот дашборд в избранное",
        "В избранное: {dashboard_id}",
    ),
    triggers=("star*", "favorite*", "favourite*", "избранн*"),
)

family = Implementations(specs)  # what app/tools/extra/run.py would hold


@family.implements(my_session_spec)
async def my_session(args: SessionArgs, deps: ToolDeps) -> dict[str, Any]:
    return {"user": deps.user_id, "role": deps.role, "env": deps.env_id}


@family.implements(star_dashboard_spec)
async def star_dashboard(args: StarArgs, deps: ToolDeps) -> dict[str, Any]:
    return {"starred": args.dashboard_id}


DECLS = join((*implementations(FAMILIES), family))  # the product's tools and the two above
CATALOG = catalog_of(DECLS)
POLICY = Policy(catalog=CATALOG)
PAGE = {"objectType": "dashboard", "objectId": "42", "envId": "prod"}


def listed(role: str | None, object_type: str | None) -> set[str]:
    result = build_tool_pipeline(list(CATALOG.values()), role, object_type, policy=POLICY)
    return {spec.name for spec in result.tools} & {"my_session", "star_dashboard"}


@pytest.mark.parametrize(
    ("role", "object_type", "expected"),
    [
        ("analyst", None, {"my_session"}),  # a new write is closed by default: admins only
        ("admin", None, {"my_session", "star_dashboard"}),
        ("viewer", None, {"my_session"}),  # a new read is open to every role
        ("guest", None, {"my_session"}),  # an unknown role gets read tools only
        ("admin", "dashboard", set()),  # no context affinity: off a dashboard page's list
    ],
)
def test_the_pipeline_lists_a_declared_tool_for_the_roles_it_fits(role, object_type, expected):
    assert listed(role, object_type) == expected


def planner(catalog: Any = CATALOG) -> Any:
    schemas = [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": s.args_model.model_json_schema(),
            },
        }
        for s in catalog.values()
    ]
    return OfflinePlanner(catalog=catalog).bind_tools(schemas)


def ask(model: Any, text: str, page: dict[str, str] | None = None) -> Any:
    prompt = build_system_prompt(
        selected_env_id="dev",
        environments=[{"id": "dev", "tier": "dev"}, {"id": "prod", "tier": "prod"}],
        lang="en",
        uicontext_block=inject_uicontext("", page),
    )
    return model.invoke([SystemMessage(prompt), HumanMessage(text)])


@pytest.mark.parametrize(
    ("text", "page", "tool", "args"),
    [
        ("show my session in prod", None, "my_session", {"env_id": "prod"}),
        ("what about my session", None, "my_session", {"env_id": "dev"}),
        ("покажи мою сессию на проде", None, "my_session", {"env_id": "prod"}),
        ("что с моей сессией", None, "my_session", {"env_id": "dev"}),
        ("star this dashboard", PAGE, "star_dashboard", {"dashboard_id": "42", "env_id": "prod"}),
        ("star dashboard 7", None, "star_dashboard", {"dashboard_id": "7", "env_id": "dev"}),
        (
            "добавь этот дашборд в избранное",
            PAGE,
            "star_dashboard",
            {"dashboard_id": "42", "env_id": "prod"},
        ),
    ],
)
def test_the_offline_planner_routes_plain_requests_to_a_declared_tool(text, page, tool, args):
    reply = ask(planner(), text, page)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [(tool, args)]


def test_without_the_declaration_the_planner_does_not_know_the_tool():
    reply = ask(OfflinePlanner().bind_tools([]), "show my session")
    assert "my_session" not in [c["name"] for c in reply.tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("star a dashboard", "To star a dashboard I need a dashboard id"),
        ("добавь дашборд в избранное", "Чтобы добавить дашборд в избранное, мне нужно: id"),
        ("hello", "- show your session here (`my_session`)"),
        ("привет", "- показать вашу сессию здесь (`my_session`)"),
    ],
)
def test_the_planner_asks_and_lists_a_declared_tool_in_its_own_words(text, expected):
    reply = ask(planner(), text)
    assert reply.tool_calls == [] and expected in reply.text


async def test_a_declared_tool_runs_through_the_guard_and_the_tool_list_shows_it(
    user: User, harness: Any
) -> None:
    harness.parts = replace(harness.parts, rules=Rules(harness.parts.registry, tools=DECLS))
    harness.use(tools={"my_session": my_session}, model=OfflinePlanner(catalog=CATALOG))
    for text, answer in (
        ("show my session", "Done: show your session here."),
        ("моя сессия", "Готово"),
    ):
        events = await harness.run(text, role="analyst")
        start = first(events, "tool_start")
        assert (start["tool_name"], start["tool_args"]) == ("my_session", {"env_id": "dev"})
        assert first(events, "tool_end")["status"] == "completed"
        assert first(events, "message")["text"].startswith(answer)
    rows = harness.audit_rows(tool="my_session")
    assert rows and {r["user"] for r in rows} == {"alice"}
    r = await user.http_client.get("/api/agent/tools", params={"role": "admin"})
    assert {"my_session", "star_dashboard"} <= set(r.json()["tools"])
    r = await user.http_client.get("/api/agent/tools", params={"role": "analyst"})
    assert "my_session" in r.json()["tools"] and "star_dashboard" not in r.json()["tools"]
    r = await user.http_client.get("/api/agent/tools")  # no role: read tools only
    assert "my_session" in r.json()["tools"] and "star_dashboard" not in r.json()["tools"]


def test_the_mcp_tool_list_takes_a_declared_tools_hints_from_its_declaration():
    admin = Principal(user_id="alice", role="admin")
    offered = {t.name: t for t in offered_tools(POLICY, admin, None, DECLS)}
    assert offered["my_session"].idempotent is True  # a read: idempotent unless declared
    assert offered["star_dashboard"].idempotent is False  # a write: not, unless declared
    assert offered["my_session"].risk == "read" and offered["star_dashboard"].risk == "write"
    assert offered["my_session"].input_schema == SessionArgs.model_json_schema()


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("show my session in prod", "Show your session here…"),
        ("покажи мою сессию на проде", "Показать вашу сессию здесь…"),
    ],
)
def test_the_planners_step_line_says_what_a_declared_tool_can_do(text, step):
    assert ask(planner(), text).content == step  # its declared can=, not its raw name
