"""The planner's patterns and scans as they were before they were made linear: the
reference ``test_linear_rewrites.py`` compares the product's ones with (issue-free text
reads the same)."""

from __future__ import annotations

import re
from typing import Any

from app.planner import names
from app.planner.text import EnvResolver

ENVS = EnvResolver({"dev": "dev", "staging": "staging", "prod": "prod"})
CASE = re.IGNORECASE
_AT = r"(?:on|in|at|against|using|в|во|на)"
_DB_WORD = r"(?:database|db|базе(?:\s+данных)?|базу(?:\s+данных)?|бд)"
_ENV_WORD = r"(?:env(?:ironment)?|окружении|окружение|стенде|среде)"
_NAME = r"[#№]?\s*[\w.-]+"
TRAILING = (
    re.compile(rf"\s+{_AT}\s+(?:the\s+)?{_DB_WORD}\s+{_NAME}$", CASE),
    re.compile(rf"\s+{_AT}\s+(?:the\s+)?(?:{_ENV_WORD}\s+)?(?:{ENVS.pattern.pattern})$", CASE),
    re.compile(rf"\s+{_AT}\s+(?:the\s+)?(?:schema|схеме|схему)\s+{_NAME}$", CASE),
    re.compile(r"\s*,?\s+(?:please|pls|пожалуйста)$", CASE),
)
DASHBOARD_IDS = re.compile(
    r"(?:\bdashboards?|дашборд\w*|\bids?\b|#|№)\s*(?:id|#|№|номер\w*)?\s*[:=]?\s*"
    r"(\d+(?:\s*(?:,|;|and|&|и|\s)\s*\d+)*)",
    CASE,
)
NOT_DASHBOARD_BEFORE = re.compile(
    r"(?:tasks?|jobs?|backups?|задач\w*|бэкап\w*|бекап\w*|limit|first|top|role|роли)"
    r"\s*[#№]?\s*$",
    CASE,
)
QUOTED = re.compile(
    r"\"([^\"]+)\"|«([^»]+)»|“([^”]+)”|„([^“”]+)[“”]|`([^`]+)`|(?<!\w)'([^']+)'(?!\w)"
)
CODE = re.compile(r"(^\s{0,3}(```|~~~).*?^\s{0,3}\2[^\n]*$|(`+).+?\3)", re.M | re.S)
_END = r"\s*[.!]?\s*$"
PICKS = (
    re.compile(
        r"^\s*(?:dashboard|дашборд)\s+[#№]?(\d+)(?:\s+(?:in|в|на)\s+([A-Za-z0-9_.-]+))?" + _END,
        CASE,
    ),
    re.compile(
        r"^\s*(?:backup|бэкап)\s+((?=[\w.:-]*\d|[0-9a-f]{4,}\b)[0-9A-Za-z][\w.:-]{3,}?)…?" + _END,
        CASE,
    ),
    re.compile(r"^\s*(?:schema|схема)\s+(\S+)\s+(?:in\s+database|в\s+базе)\s+(.+?)" + _END, CASE),
)
PAIR = re.compile(r"([\w.-]+)\s*(?:->|=>|→|=|:)\s*([\w.-]+)")
NAME_BEFORE_DB = re.compile(r"\b([A-Za-z_][\w.-]*)\s+(?:database|db)\b", CASE)
NAME_BEFORE_TABLE = re.compile(r"([A-Za-z_][\w.]*)\s+(?:\btables?\b|\bтаблиц[аеуы]?\b)", CASE)
NAME_AFTER_DB = re.compile(
    r"(?:\bdatabases?\b|\bdb\b|баз[аеуы]\s+данных|\bбаз[аеуы]\b|\bбд\b)"
    r"\s*[:=]?\s*[\"'«“`]?([A-Za-z0-9_][\w./:-]*)",
    CASE,
)
ROW_LIMIT = re.compile(r"(?:limit|first|top|row_limit)\s*(\d+)|(\d+)\s*(?:rows|строк)", CASE)
MINUTES = re.compile(r"(\d+)\s*(?:minutes?|mins?|m\b|минут\w*|мин\b)", CASE)
BECAUSE = re.compile(
    r"(?:because(?:\s+of)?|reason\s*[:=]?|due\s+to|причина\s*[:=]?|потому\s+что|из-за"
    r"|по\s+причине)\s*(.+)$",
    CASE,
)
PURPOSE = re.compile(
    r"\b(?:for|для)\s+(?!\d|an?\s+hour|one\s+hour|half\s+an|the\s+next\b|(?:a|one)\s+day\b)"
    r"(?![^,.;]*\b(?:min(?:ute)?s?|hours?|days?|минут\w*|час\w*|дн\w*)\b)(.+)$",
    CASE,
)
MESSAGE = re.compile(
    r"(?:message|msg|сообщени\w*|комментари\w*|с\s+текстом)\s*[:=]?\s*(.+)$|:\s*(.+)$", CASE
)
FACTS_LINE = re.compile(r"^\s*([a-z_]+)\s*:\s*(.*?)\s*$", re.M)
HTML_TITLE = re.compile(r"<title>(.*?)</title>", re.I | re.S)
HTML_TAG = re.compile(r"<[^>]+>")
JSON_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
BARE_NUMBER = re.compile(r"(?<![\w.:/-])\d+(?![\w.:/-])")


def mentions(text: str) -> list[Any]:
    """(start, role) of each environment mention, the words before it read each time."""
    found = []
    for m in ENVS.pattern.finditer(text):
        before = re.findall(r"[\w-]+", text[: m.start()].lower())
        prev = before[-1] if before else ""
        if prev in {"environment", "env", "окружение", "окружения", "среда", "среды", "стенд"}:
            prev = before[-2] if len(before) > 1 else ""
        source = prev in {"from", "off", "с", "со", "из", "source"}
        target = prev in {"to", "into", "onto", "on", "на", "в", "во", "target"}
        found.append((m.start(), "source" if source else "target" if target else None))
    return found


def words_before(scan: str, end: int) -> str | None:
    """A title before "dashboard" after the nearest "the"/"my"/"our" (all words split)."""
    return names.name_after_article(scan[:end].split())
