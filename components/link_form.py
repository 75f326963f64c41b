"""The "Connect your Superset account" form (a dialog), opened by a ``link_account`` offer
for a person environment. It asks for the Superset username and password and hands them
to ``submit`` (the page controller's: one sign-in, then the password is dropped); the
password field never echoes and is emptied after every attempt; nothing typed here
enters the chat, its history or the page's storage. ``submit`` answers
``(connected, sentence)``: the sentence is shown in the form (a refusal) or as a notice
(connected), and the form closes when it connected."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui

from app.i18n import t

Submit = Callable[[str, str, str], Awaitable[tuple[bool, str]]]


class LinkForm:
    """One dialog per page visit; :meth:`open_for` shows it for an environment."""

    def __init__(self, lang: str, submit: Submit) -> None:
        self.lang = lang
        self.env_id = ""
        self._submit = submit
        with ui.dialog() as self.dialog, ui.card().classes("w-96 gap-3").mark("link-form"):
            ui.label(t("link_form_title", lang)).classes("text-lg font-medium")
            self.hint = ui.label("").classes("text-sm text-gray-700").mark("link-hint")
            self.username = ui.input(t("superset_username", lang)).props("autocomplete=username")
            self.username.classes("w-full").mark("link-username")
            self.password = ui.input(t("superset_password", lang), password=True)
            self.password.props("autocomplete=current-password").classes("w-full")
            self.password.mark("link-password")
            self.password.on("keydown.enter", self.connect)
            self.error = ui.label("").classes("text-sm text-red-700").mark("link-error")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(t("cancel", lang), on_click=self.dialog.close).props("flat no-caps")
                self.button = ui.button(t("link_connect", lang), on_click=self.connect)
                self.button.props("unelevated no-caps color=blue-9").mark("link-connect")

    def open_for(self, env_id: str) -> None:
        self.env_id = env_id
        self.hint.text = t("link_form_hint", self.lang, env=env_id)
        self.error.text = ""
        self.password.value = ""
        self.dialog.open()

    async def connect(self) -> None:
        username, password = (self.username.value or "").strip(), self.password.value or ""
        self.password.value = ""  # never kept on the page, whatever happens next
        if not username or not password:
            self.error.text = t("fill_both", self.lang)
            return
        self.button.disable()
        try:
            connected, sentence = await self._submit(self.env_id, username, password)
        finally:
            self.button.enable()
        if connected:
            self.dialog.close()
            ui.notify(sentence, type="positive")
        else:
            self.error.text = sentence
