"""Deep links into the /agent page, and the small CLI that prints one.

``/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod`` opens the chat
with that object as its context. ``agent_link`` builds such a link and
``dashboard_markdown_link`` a markdown line a team can paste into a Superset dashboard's
markdown component (``python -m app.pages.links ...``); ``is_local_path`` guards the
sign-in page's ``?next=``.
"""

from __future__ import annotations

import argparse
from urllib.parse import urlencode, urlsplit

from app.vocab import OBJECT_TYPES


def agent_link(
    base_url: str = "",
    *,
    object_type: str | None = None,
    object_id: str | int | None = None,
    object_name: str | None = None,
    env_id: str | None = None,
    lang: str | None = None,
) -> str:
    """``{base_url}/agent?objectType=…&objectId=…&objectName=…&envId=…`` (empty parts left out)."""
    if object_type is not None and object_type not in OBJECT_TYPES:
        raise ValueError(
            f"objectType must be one of {', '.join(OBJECT_TYPES)}, not {object_type!r}"
        )
    params = {
        "objectType": object_type,
        "objectId": None if object_id is None else str(object_id),
        "objectName": object_name,
        "envId": env_id,
        "lang": lang,
    }
    query = urlencode({k: v for k, v in params.items() if v})
    path = base_url.rstrip("/") + "/agent"
    return f"{path}?{query}" if query else path


def dashboard_markdown_link(
    base_url: str,
    *,
    dashboard_id: str | int,
    dashboard_title: str,
    env_id: str,
    label: str = "Ask the ss-tools agent about this dashboard",
) -> str:
    """A markdown line for a Superset dashboard's markdown component."""
    url = agent_link(
        base_url,
        object_type="dashboard",
        object_id=dashboard_id,
        object_name=dashboard_title,
        env_id=env_id,
    )
    return f"[{label}]({url})"


def is_local_path(target: str | None) -> bool:
    """True for a same-site path like ``/agent?x=1`` (used to validate ``?next=``)."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return False
    if "\\" in target or any(ord(c) < 32 for c in target):
        return False
    parts = urlsplit(target)
    return not parts.scheme and not parts.netloc


def main(argv: list[str] | None = None) -> int:
    """``python -m app.pages.links --base-url URL --dashboard-id 42 --title Sales --env prod``"""
    parser = argparse.ArgumentParser(
        prog="python -m app.pages.links",
        description="Print a markdown deep link to /agent for a Superset dashboard.",
    )
    parser.add_argument("--base-url", required=True, help="where ss-tools agent is served")
    parser.add_argument("--dashboard-id", required=True)
    parser.add_argument("--title", required=True, help="the dashboard's title")
    parser.add_argument("--env", required=True, help="the environment id, e.g. prod")
    parser.add_argument("--label", default="Ask the ss-tools agent about this dashboard")
    ns = parser.parse_args(argv)
    print(
        dashboard_markdown_link(
            ns.base_url,
            dashboard_id=ns.dashboard_id,
            dashboard_title=ns.title,
            env_id=ns.env,
            label=ns.label,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
