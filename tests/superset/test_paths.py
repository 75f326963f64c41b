"""An id never becomes a path. Every id or slug that goes into a Superset URL is checked
(an int, or a slug) and quoted by the client, and every request's path is checked once more
before anything is sent."""

from __future__ import annotations

from typing import Any

import pytest

from app.errors import UnsafePathError
from app.parts import Parts
from app.superset.paths import api_path, check_path, segment
from tests.superset.fake import FakeSuperset
from tests.superset.tool_calls import call, deps_for

TRAVERSAL = "1/../../security/users/"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (42, "42"),  # an int id
        ("42", "42"),  # digits from the model (ids are strings in the args)
        ("sales-2024", "sales-2024"),  # a slug
        ("world_health", "world_health"),  # underscores
        ("v1.2", "v1.2"),  # a dot inside a slug is no dot segment
        ("A" * 255, "A" * 255),  # the longest slug
    ],
)
def test_ids_and_slugs_are_path_segments(value: int | str, expected: str) -> None:
    assert segment(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        TRAVERSAL,  # the review's probe: another endpoint with the service account
        "..",  # a dot segment
        ".",  # the current-directory segment
        ".hidden",  # any leading dot
        "1/2",  # a slash
        "1%2F..%2F",  # percent-encoded slash and dots
        "1?q=x",  # a query
        "1#x",  # a fragment
        "a b",  # a space
        "1\\..",  # a backslash
        "",  # empty
        "A" * 256,  # over 255 characters
        "дашборд",  # not ASCII
        True,  # a bool is not an id
        1.5,  # nor a float
    ],
)
def test_anything_else_is_refused_with_a_clear_error(value: Any) -> None:
    with pytest.raises(UnsafePathError, match=r"id or a slug|cannot be used in a Superset URL"):
        segment(value)


def test_a_template_is_filled_with_checked_segments() -> None:
    assert api_path("/api/v1/dashboard/{}/charts", "sales") == "/api/v1/dashboard/sales/charts"
    with pytest.raises(UnsafePathError):
        api_path("/api/v1/dashboard/{}/charts", TRAVERSAL)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/dashboard/1/../../security/users/",  # dot segments
        "/api/v1/dashboard/%2e%2e/x",  # encoded dots
        "/api/v1/dashboard/1?x=1",  # a query in the path
        "api/v1/dashboard/1",  # not absolute
    ],
)
def test_a_request_path_is_checked_once_more(path: str) -> None:
    with pytest.raises(UnsafePathError, match="unsafe Superset path"):
        check_path(path)


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("get_dashboard", (TRAVERSAL,)),
        ("dashboard_charts", (TRAVERSAL,)),
        ("dashboard_datasets", (TRAVERSAL,)),
        ("remove_dashboard", (TRAVERSAL,)),
        ("get_chart", ("../security/roles/",)),
        ("chart_data", ("1/../../../security/users",)),
        ("get_dataset", ("..",)),
        ("schemas", ("1/../2",)),
        ("tables", ("1/..", "public")),
        ("table_metadata", ("..", "t")),
        ("role_permissions", ("1/../../users",)),
    ],
)
async def test_no_client_method_sends_a_crafted_id(method: str, args: tuple[Any, ...]) -> None:
    fake = FakeSuperset()
    client = fake.client()
    with pytest.raises(UnsafePathError):
        await getattr(client, method)(*args)
    assert fake.requests == []  # nothing sent, not even the login
    with pytest.raises(UnsafePathError):
        await client.get_json("/api/v1/dashboard/" + TRAVERSAL)  # a raw path is checked too
    assert fake.requests == []
    await client.aclose()


async def test_a_read_tool_with_a_path_for_an_id_fails_and_fetches_nothing(parts: Parts) -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/security/users/", {"result": [{"username": "admin"}]})
    with pytest.raises(UnsafePathError, match="cannot be used in a Superset URL"):
        await call("get_health_summary", deps_for(parts, fake), dashboard_id=TRAVERSAL)
    assert not [r for r in fake.requests if "security/users" in r.url.path]


async def test_a_slug_still_reaches_its_dashboard(parts: Parts) -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/sales-2024", {"result": {"id": 7, "slug": "sales-2024"}})
    client = fake.client()
    assert (await client.get_dashboard("sales-2024"))["id"] == 7
    await client.aclose()
