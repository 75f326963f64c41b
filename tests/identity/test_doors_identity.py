"""The same refusals reach every door: an MCP client and an HTTP client asking on a person
environment with no link get the typed ``account_not_linked`` refusal with the
``link_account`` offer; once the person linked their account (over HTTP), the same MCP
call answers as them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.events import decode_sse
from tests.identity.test_identity_sandbox import REGIONS
from tests.mcp.clients import McpEndpoint
from tests.mcp.support import text_of
from tests.server_proc import Server, add_user, server_env

pytestmark = [pytest.mark.superset, pytest.mark.timeout(300)]
PASSWORD = "pw-people-1"


@pytest.fixture(scope="module")
def people_server(
    person_envs_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[McpEndpoint]:
    data = tmp_path_factory.mktemp("people-doors") / "data"
    env = server_env(data, SS_TOOLS_ENVIRONMENTS_FILE=str(person_envs_file))
    add_user(env, "ana", "analyst", PASSWORD)
    with Server(env) as server:
        yield McpEndpoint(server, {"ana": server.token("ana", PASSWORD)})


async def test_mcp_and_http_get_the_typed_refusal_then_the_persons_answer(
    people_server: McpEndpoint, alice_password: str
) -> None:
    server, token = people_server.server, people_server.tokens["ana"]
    args = {"sql": REGIONS, "database": "Sales", "env_id": "dev"}
    async with people_server.client("ana") as c:
        refused = await c.call_tool("superset_execute_sql", args)
    assert refused.is_error
    data = refused.structured_content or {}
    assert data["error"] == "account_not_linked"
    assert (data["refusal"]["code"], data["refusal"]["env_id"]) == ("account_not_linked", "dev")
    assert [(o["kind"], o["env_id"]) for o in data["offers"]] == [("link_account", "dev")]
    body = {"conv_id": "http-1", "tool_name": "superset_execute_sql", "args": args}
    http = server.post("/api/agent/call", token, body)
    error = next(e for e in decode_sse(http.text) if e["type"] == "error")
    assert error["refusal"]["code"] == "account_not_linked"
    assert [o["kind"] for o in error["offers"]] == ["link_account"]
    account = {"env_id": "dev", "username": "alice", "password": alice_password}
    linked = server.post("/api/superset/accounts", token, account)
    assert linked.status_code == 201, linked.text
    async with people_server.client("ana") as c:
        answered = await c.call_tool("superset_execute_sql", args)
    assert not answered.is_error, text_of(answered)
    rows = (answered.structured_content or {})["rows"]
    assert [r["region"] for r in rows] == ["North"]  # as alice: her row-level rule
