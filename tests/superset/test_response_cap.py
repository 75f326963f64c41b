"""A Superset answer is read within the session's byte cap: a larger one is refused with
a clear, final error after reading no more than the cap (decoded, so a compressed answer
counts as it unpacks), and nothing of it is parsed; an answer within the cap reads as
before, a large JSON body parsed off the event loop."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from app.errors import SupersetError
from app.superset import body
from tests.superset.fake import FakeSuperset

CAP = 64 * 1024
CHUNK = 4096


class CountedStream(httpx.AsyncByteStream):
    """A body of ``chunks`` chunks of ``CHUNK`` bytes that counts how many were read."""

    def __init__(self, chunks: int, data: bytes = b"x" * CHUNK) -> None:
        self.chunks, self.data, self.read = chunks, data, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.chunks):
            self.read += 1
            yield self.data


def serving(answer: httpx.Response | None = None, stream: CountedStream | None = None, **kw):
    fake = FakeSuperset()
    fake.route(
        "GET",
        "/api/v1/dashboard/",
        lambda r: answer if answer is not None else httpx.Response(200, stream=stream, **kw),
    )
    client = fake.client()
    client.max_response_bytes = CAP
    return client


@pytest.mark.parametrize(
    ("chunks", "headers", "most_read"),
    [
        # 4 MB streamed with no length: reading stops at the first chunk past the cap
        (1000, {}, CAP // CHUNK + 1),
        # a declared length past the cap: not read at all
        (1000, {"content-length": str(1000 * CHUNK)}, 0),
    ],
)
async def test_an_answer_over_the_cap_is_refused_after_reading_no_more_than_the_cap(
    chunks: int, headers: dict[str, str], most_read: int
) -> None:
    stream = CountedStream(chunks)
    client = serving(stream=stream, headers=headers)
    with pytest.raises(SupersetError, match=r"larger than 64 KiB and was not read") as info:
        await client.get_json("/api/v1/dashboard/")
    assert not info.value.retryable and info.value.details["env_id"] == "dev"
    assert "GET /api/v1/dashboard/" in str(info.value)
    assert stream.read <= most_read
    await client.aclose()


async def test_a_compressed_answer_counts_as_it_unpacks() -> None:
    packed = gzip.compress(b" " * (4 * CAP))  # a few hundred bytes on the wire
    answer = httpx.Response(200, content=packed, headers={"content-encoding": "gzip"})
    client = serving(answer)
    with pytest.raises(SupersetError, match="was not read"):
        await client.get_json("/api/v1/dashboard/")
    await client.aclose()


@pytest.mark.parametrize("size", [10, body.OFF_LOOP_JSON + 10])  # on the loop, then off it
async def test_an_answer_within_the_cap_reads_as_before(size: int) -> None:
    doc = {"result": ["x" * size], "count": 1}
    client = serving(httpx.Response(200, json=doc))
    client.max_response_bytes = 2 * size + 1000
    assert await client.get_json("/api/v1/dashboard/") == doc
    await client.aclose()


async def test_a_gzipped_answer_within_the_cap_is_decoded_once() -> None:
    doc = {"result": [1, 2, 3]}
    packed = gzip.compress(json.dumps(doc).encode())
    client = serving(httpx.Response(200, content=packed, headers={"content-encoding": "gzip"}))
    assert await client.get_json("/api/v1/dashboard/") == doc
    await client.aclose()
