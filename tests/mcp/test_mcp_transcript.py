"""One confirmed write as an MCP client sees it, recorded on the wire against the real
server (real core, Superset sandbox): initialize, ``tools/call``, the server's
``elicitation/create`` on that call's stream, the person's "accept", the result.

``SS_TOOLS_TEST_WRITE_TRANSCRIPT=1`` writes it to ``tests/mcp/TRANSCRIPT.md`` (the docs);
otherwise to the test's temp dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.mcp.clients import WireLog
from tests.mcp.real_server import RealMcpServer
from tests.mcp.support import Person
from tests.mcp.transcript import render

pytestmark = [pytest.mark.superset, pytest.mark.timeout(300)]

DOCS = Path(__file__).with_name("TRANSCRIPT.md")
INTRO = """\
Recorded by `tests/mcp/test_mcp_transcript.py` with the official `mcp` SDK client
(`mcp.client.streamable_http`, protocol 2025-11-25, form elicitation declared) against
`python main.py` on the Superset sandbox (dev + prod). The admin `ops` asks for a backup of
the *Sales Overview* dashboard on **prod**: a guarded write. The server asks the person
through `elicitation/create` on the `tools/call` response stream; the person accepts with a
reason; the call runs once and answers with `structuredContent`. No header is recorded (the
bearer token never appears); long strings and lists are trimmed (`…`).

After the result, the SDK client fetches `tools/list` by itself: it checks a result's
`structuredContent` against the tool's output schema when it has not listed the tools yet.

Audit rows of this call (all `channel = "mcp"`, `client = "claude-desktop-demo"`):
`tool_filtered`, `confirm_requested`, `confirmed` (with the reason), `executed`.
"""


async def test_a_confirmed_write_on_the_wire(real_mcp: RealMcpServer, tmp_path: Path) -> None:
    wire = WireLog()
    person = Person(("accept", "backup before the 4.2 release"))
    args = {"env_id": "prod", "dashboard_ids": ["sales-overview"]}
    async with real_mcp.client("ops", elicit=person, name="claude-desktop-demo", wire=wire) as c:
        result = await c.call_tool("run_backup", args)
    assert not result.is_error
    messages = [e.message for e in wire.entries if isinstance(e.message, dict)]
    methods = [m.get("method") for m in messages if "method" in m]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/call"]
    assert "elicitation/create" in methods
    ask = next(m for m in messages if m.get("method") == "elicitation/create")
    sent = [e.message for e in wire.entries if e.direction == "->" and e.message]
    answer = next(m for m in sent if m.get("id") == ask["id"] and "result" in m)
    assert answer["result"]["action"] == "accept"
    final = next(m for m in messages if "result" in m and "structuredContent" in m["result"])
    assert final["result"]["structuredContent"]["env_id"] == "prod"
    assert all("Bearer" not in str(m) for m in messages)
    conv = real_mcp.audit(user="ops", tool="run_backup", kind="executed")[-1]["conv_id"]
    rows = real_mcp.audit(conv_id=conv)
    assert [r["kind"] for r in rows] == [
        "tool_filtered",
        "confirm_requested",
        "confirmed",
        "executed",
    ]
    assert {r["client"] for r in rows} == {"claude-desktop-demo"}
    text = render(wire.entries, title="Transcript: one confirmed write over MCP", intro=INTRO)
    write_docs = os.environ.get("SS_TOOLS_TEST_WRITE_TRANSCRIPT") == "1"
    target = DOCS if write_docs else tmp_path / DOCS.name
    target.write_text(text, encoding="utf-8")
