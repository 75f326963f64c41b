"""The strings of the operator's controls (issue 11: edit, cancel with a reason, stop,
the conversation drawer), in English and Russian; ``app.i18n`` merges them into its
table, so ``t(key, lang)`` finds them."""

from __future__ import annotations

CONTROL_STRINGS: dict[str, tuple[str, str]] = {
    # edit before approving
    "edit": ("Edit", "Изменить"),
    "edit_title": ("Edit the arguments", "Измените аргументы"),
    "edit_hint": (
        "Edited arguments are checked again. A higher risk or another environment asks "
        "for a new confirmation.",
        "Изменённые аргументы проверяются заново. Более высокий риск или другое окружение "
        "потребуют нового подтверждения.",
    ),
    "edit_apply": ("Apply and confirm", "Применить и подтвердить"),
    "back": ("Back", "Назад"),
    # cancel with a reason
    "deny_reason": ("Reason (optional)", "Причина (необязательно)"),
    "deny_submit": ("Cancel the operation", "Отменить операцию"),
    # stop
    "stop": ("Stop", "Остановить"),
    "stopping": ("Stopping…", "Остановка…"),
    "stopped": ("Stopped.", "Остановлено."),
    "stopped_writes_go_on": (
        "Stopped. A change already under way goes on; its outcome will appear here.",
        "Остановлено. Уже начатое изменение продолжается; его результат появится здесь.",
    ),
    "tool_goes_on": (
        "Still running: a stop never interrupts a change. The outcome will appear here.",
        "Выполняется: остановка не прерывает изменение. Результат появится здесь.",
    ),
    # the conversation drawer
    "conversations": ("Conversations", "Диалоги"),
    "no_conversations": ("No conversations yet", "Диалогов пока нет"),
    "rename": ("Rename", "Переименовать"),
    "archive": ("Archive", "В архив"),
    "save": ("Save", "Сохранить"),
    "pending_badge": ("Awaiting confirmation", "Ждёт подтверждения"),
    "updated_at": ("Updated {when}", "Обновлён {when}"),
    "any_env": ("no env", "без окружения"),
}
