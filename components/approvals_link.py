"""The header's link to ``/approvals`` with how many requests wait for the signed-in
person's approval (shown only to people who may approve, while four-eyes is on)."""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.approvals_queue import ApprovalsCount


def approvals_link(counter: ApprovalsCount, lang: str) -> ui.element:
    with ui.link(target="/approvals").classes(
        "flex items-center gap-1 text-white no-underline"
    ) as link:
        ui.icon("how_to_reg").classes("text-xl")
        ui.label(t("approvals_link", lang)).classes("text-sm")
        badge = ui.badge("", color="orange")
        badge.props('aria-label="waiting for approval" data-testid="approvals-count"')
        badge.bind_text_from(counter, "count", backward=lambda n: str(n or 0))
        badge.bind_visibility_from(counter, "count", backward=bool).mark("approvals-count")
    link.bind_visibility_from(counter, "count", backward=lambda n: n is not None)
    return link.mark("approvals-link")
