"""Test-only entry: the product with its MCP door on :class:`FakeGateway`.

Run as ``python -m tests.mcp.serve_fake`` (``tests.server_proc.Server(argv=...)``); the
same settings → database → app factory → ``ui.run`` order as ``main.py`` (its
:func:`main.serve`), with the gateway handed to the app factory the way the composition
root will hand in the core.
``SS_TOOLS_TEST_MCP_LOG`` names the fake's decision log, ``SS_TOOLS_TEST_MCP_COUNTDOWN_S``
its dangerous countdown.
"""

import os
from pathlib import Path

from app.settings import Settings
from app.web import create_app
from main import serve
from tests.mcp.fake_gateway import FakeGateway

gateway = FakeGateway(
    Path(os.environ["SS_TOOLS_TEST_MCP_LOG"]),
    countdown_s=float(os.environ.get("SS_TOOLS_TEST_MCP_COUNTDOWN_S", "2")),
)
_s = Settings()
create_app(settings=_s, mcp_gateway=gateway)

if __name__ in {"__main__", "__mp_main__"}:
    serve(_s, title="ss-tools agent (fake MCP gateway)")
