"""A Superset answer's body, read within a byte cap and parsed off the event loop when
it is large (used by :class:`app.superset.http_session.SupersetSession` for every request).

SQL Lab adds ``LIMIT 1001`` (the product asks for at most 10,000 rows), but a row can be
any size, and an export zip or a list can be large too: :func:`send_capped` streams the
answer and stops reading once it passes :data:`app.caps.MAX_RESPONSE_BYTES` (what
httpx decodes, so a compressed answer counts as it unpacks; one network chunk may
inflate past the cap before the count sees it — at most about a thousand times that
chunk). The answer is then refused as a :class:`~app.errors.SupersetError` (final: a
retry would read the same), naming the request, and nothing of it is parsed.
:func:`json_of` parses a body above :data:`OFF_LOOP_JSON` bytes in the CPU pool.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from app.caps import MAX_RESPONSE_BYTES
from app.cpu import off_loop
from app.errors import SupersetError

OFF_LOOP_JSON = 256 * 1024  # smaller bodies parse in well under a millisecond
_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _size(n: int) -> str:
    return f"{n / 1024**2:g} MiB" if n >= 1024**2 else f"{n / 1024:g} KiB"


def too_large(what: str, max_bytes: int, env_id: str | None) -> SupersetError:
    return SupersetError(
        f"Superset's answer to {what} is larger than {_size(max_bytes)} and was not read: ask "
        "for fewer rows or columns, or shorter values (LIMIT, substr())",
        env_id=env_id,
    )


async def send_capped(
    http: httpx.AsyncClient,
    request: httpx.Request,
    *,
    max_bytes: int = MAX_RESPONSE_BYTES,
    what: str,
    env_id: str | None = None,
) -> httpx.Response:
    """``request`` sent on ``http``; its answer read whole if it is within ``max_bytes``
    (decoded), else a SupersetError. The answer returned is a plain, read response."""
    resp = await http.send(request, stream=True)
    chunks: list[bytes] = []
    try:
        declared = resp.headers.get("content-length", "")
        if (
            declared.isdigit()
            and int(declared) > max_bytes
            and "content-encoding" not in resp.headers
        ):
            raise too_large(what, max_bytes, env_id)
        size = 0
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise too_large(what, max_bytes, env_id)
            chunks.append(chunk)
    finally:
        await resp.aclose()
    headers = [(k, v) for k, v in resp.headers.multi_items() if k.lower() not in _HOP_HEADERS]
    return httpx.Response(
        resp.status_code, headers=headers, content=b"".join(chunks), request=resp.request
    )


async def json_of(resp: httpx.Response) -> Any:
    """``resp``'s JSON body; a large one is parsed off the event loop."""
    if len(resp.content) > OFF_LOOP_JSON:
        return await off_loop(json.loads, resp.content)
    return resp.json()


async def json_or_empty(resp: httpx.Response) -> Any:
    """The JSON body, ``{}`` for none, ``{"text": …}`` for a body that is not JSON."""
    if not resp.content:
        return {}
    try:
        return await json_of(resp)
    except ValueError:
        return {"text": resp.text}
