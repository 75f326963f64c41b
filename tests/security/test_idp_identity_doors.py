"""An analyst-role IdP token with ``sub: "ada"`` is not the local admin ada, on any door:
it cannot read her conversation, stop it, or answer (cancel) her pending confirmation, over
HTTP or through the MCP door; what it does itself is recorded under its namespaced id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import RSAKey
from nicegui import app
from nicegui.testing import User

from app.events import decode_sse
from app.mcp.core_gateway import CoreGateway
from app.mcp.gateway import GatewayRefused, ToolResumeRequest
from app.mcp.http import DOOR_STATE
from tests.agent.harness import first, token_for
from tests.auth.conftest import claims_of, jwks_document, rs_token
from tests.mcp.support import open_session, tools_call
from tests.support import served

ISS = "https://idp.example/realms/ops"
IDP_ADA = f"{ISS}#ada"


@pytest.fixture(scope="module")
def rsa_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": "idp-1", "use": "sig", "alg": "RS256"})


@pytest.fixture
def idp_token(tmp_path: Path, rsa_key: RSAKey, monkeypatch: pytest.MonkeyPatch) -> str:
    """The app accepts the IdP's tokens (set before the app starts: ask for this fixture
    before ``user``); an analyst-role token whose subject is "ada"."""
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(jwks_document(rsa_key)))
    monkeypatch.setenv("SS_TOOLS_JWKS_FILE", str(path))
    monkeypatch.setenv("SS_TOOLS_EXTERNAL_ISSUER", ISS)
    claims = claims_of({"sub": "ada", "iss": ISS, "role": "analyst"})
    return rs_token(claims, rsa_key)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _adas_pending_confirmation(user: User, harness: Any) -> tuple[dict[str, str], str]:
    """Local admin ada's conversation ``ada-conv``, waiting for her to confirm a deploy."""
    harness.use_deploy([])
    ada = auth(token_for(served(), "ada", "admin"))
    body = {"message": "deploy 42 to prod", "conv_id": "ada-conv", "env_id": "dev"}
    r = await user.http_client.post("/api/agent/stream", json=body, headers=ada)
    return ada, first(decode_sse(r.text), "confirm_required")["confirmation_id"]


async def _still_pending(user: User, ada: dict[str, str], confirmation_id: str) -> bool:
    r = await user.http_client.get("/api/agent/conversations/ada-conv", headers=ada)
    pending = r.json()["pending_confirmation"]
    return pending is not None and pending["confirmation_id"] == confirmation_id


async def test_an_idp_ada_cannot_read_stop_or_answer_local_adas_conversation_over_http(
    idp_token: str, user: User, harness: Any
) -> None:
    ada, confirmation_id = await _adas_pending_confirmation(user, harness)
    them = auth(idp_token)
    r = await user.http_client.get("/api/agent/conversations/ada-conv", headers=them)
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    listed = await user.http_client.get("/api/agent/conversations", headers=them)
    assert listed.status_code == 200 and listed.json()["conversations"] == []
    r = await user.http_client.post("/api/agent/cancel", json={"conv_id": "ada-conv"}, headers=them)
    assert r.status_code == 403
    answer = {"conv_id": "ada-conv", "confirmation_id": confirmation_id, "decision": "deny"}
    r = await user.http_client.post("/api/agent/resume", json=answer, headers=them)
    assert r.status_code == 403 and r.json()["reason"] == "foreign_user"
    assert await _still_pending(user, ada, confirmation_id)
    refused = harness.audit_rows(user=IDP_ADA, decision="deny")
    assert refused and all(row["role"] == "analyst" for row in refused)
    assert all(row["role"] == "admin" for row in harness.audit_rows(user="ada"))  # not as ada


async def test_an_idp_ada_through_mcp_is_its_own_user_and_cannot_cancel_adas_confirmation(
    idp_token: str, user: User, harness: Any
) -> None:
    ada, confirmation_id = await _adas_pending_confirmation(user, harness)
    door = getattr(app.state, DOOR_STATE)
    door.gateway = CoreGateway(harness.core)
    assert await door.wait_ready()
    headers = await open_session(user.http_client, idp_token)
    result = await tools_call(user.http_client, headers, "list_backups", {})
    assert not result.get("isError"), result
    conv_id = result["structuredContent"].get("conv_id") or ""
    rows = [row for row in harness.audit_rows(user=IDP_ADA) if row["channel"] == "mcp"]
    assert rows and {row["role"] for row in rows} == {"analyst"}
    mine = await user.http_client.get("/api/agent/conversations", headers=ada)
    assert conv_id not in {c["conv_id"] for c in mine.json()["conversations"]}
    # an MCP answer reaches the core only through the door's gateway, as the door's caller
    principal = harness.core.auth.verify(idp_token)
    assert principal.user_id == IDP_ADA
    deny = ToolResumeRequest(
        principal=principal, conv_id="ada-conv", confirmation_id=confirmation_id, decision="deny"
    )
    with pytest.raises(GatewayRefused) as refused:
        async for _ in door.gateway.resume(deny):
            pass
    assert refused.value.status == 403 and refused.value.reason == "foreign_user"
    assert await _still_pending(user, ada, confirmation_id)
