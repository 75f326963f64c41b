"""Phrases for the dashboard, backup and git tools (see :mod:`app.agent.planner.actions`)."""

from __future__ import annotations

from app.agent.planner.slots import Phrases, Slots, Texts, env_phrase, from_to
from app.markup import short_id


def search(s: Slots) -> Texts:
    q, en, ru = s.v("query"), env_phrase(s, "en"), env_phrase(s, "ru")
    if not q:
        return (
            f"listing the dashboards{en}",
            f"показываю дашборды{ru}",
            "поиск дашбордов",
            f"list all dashboards{en}",
            f"покажи все дашборды{ru}",
        )
    return (
        f'searching dashboards for "{q}"{en}',
        f"ищу дашборды «{q}»{ru}",
        "поиск дашбордов",
        f'find dashboards "{q}"{en}',
        f'найди дашборды "{q}"{ru}',
    )


def list_backups(s: Slots) -> Texts:
    d_en = f" of {s.dash()}" if s.args.get("dashboard_id") else ""
    d_ru = f" {s.dash(ru_case='gen')}" if s.args.get("dashboard_id") else ""
    en, ru = f"{d_en}{env_phrase(s, 'en')}", f"{d_ru}{env_phrase(s, 'ru')}"
    return (
        f"listing the backups{en}",
        f"показываю бэкапы{ru}",
        "список бэкапов",
        f"list backups{en}",
        f"покажи бэкапы{ru}",
    )


def run_backup(s: Slots) -> Texts:
    has = bool(s.args.get("dashboard_ids"))
    en = (f" {s.dash()}" if has else "") + env_phrase(s, "en")
    ru = (f" {s.dash(ru_case='gen')}" if has else "") + env_phrase(s, "ru")
    return (
        f"backing up{en or ' the environment'}",
        f"делаю бэкап{ru}",
        f"бэкап{ru}",
        f"back up{en or ' everything'}",
        f"сделай бэкап{ru}",
    )


def restore(s: Slots) -> Texts:
    b, en, ru = s.v("backup_id"), s.pre("env_id", "into", "на", "en"), env_phrase(s, "ru")
    if not s.raw:  # in sentences a long id reads better shortened
        b = short_id(b)
    return (
        f"restoring backup {b}{en}",
        f"восстанавливаю бэкап {b}{ru}",
        f"восстановление бэкапа {b}{ru}",
        f"restore backup {b}{en}",
        f"восстанови бэкап {b}{ru}",
    )


def branch(s: Slots) -> Texts:
    b = s.v("branch")
    has = bool(s.args.get("dashboard_id"))
    en = (f" for {s.dash()}" if has else "") + env_phrase(s, "en")
    ru = (f" для {s.dash(ru_case='gen')}" if has else "") + env_phrase(s, "ru")
    return (
        f"creating branch {b}{en}",
        f"создаю ветку {b}{ru}",
        f"создание ветки {b}",
        f"create branch {b}{en}",
        f"создай ветку {b}{ru}",
    )


def commit(s: Slots) -> Texts:
    msg = s.v("message")
    q = f"«{msg}»" if '"' in msg else f'"{msg}"'
    has = bool(s.args.get("dashboard_ids"))
    en = (f" of {s.dash()}" if has else "") + s.pre("branch", "to branch", "", "en")
    ru = (f" {s.dash(ru_case='gen')}" if has else "") + s.pre("branch", "", "в ветку", "ru")
    en, ru = en + env_phrase(s, "en"), ru + env_phrase(s, "ru")
    return (
        f"committing {q}{en}",
        f"коммичу {q}{ru}",
        f"коммит {q}",
        f"commit changes {q}{en}",
        f"закоммить изменения {q}{ru}",
    )


def dashboard(en_verb: str, ru_doing: str, ru_noun: str, en_req: str, ru_req: str) -> Phrases:
    """A one-dashboard tool: "{verb} dashboard 7 in prod"."""

    def phrases(s: Slots) -> Texts:
        e_en, e_ru = env_phrase(s, "en"), env_phrase(s, "ru")
        acc, gen = s.dash(ru_case="acc"), s.dash(ru_case="gen")
        return (
            en_verb.format(d=s.dash()) + e_en,
            ru_doing.format(acc=acc, gen=gen) + e_ru,
            ru_noun.format(acc=acc, gen=gen) + e_ru,
            en_req.format(d=s.dash()) + e_en,
            ru_req.format(acc=acc, gen=gen) + e_ru,
        )

    return phrases


def move(en: str, ru_doing: str, ru_noun: str, ru_req: str) -> Phrases:
    """deploy/migrate: "{verb} dashboard 7 from dev to prod"."""

    def phrases(s: Slots) -> Texts:
        f_en, f_ru = from_to(s, "en"), from_to(s, "ru")
        acc, gen = s.dash(ru_case="acc"), s.dash(ru_case="gen")
        mapping = s.args.get("database_mapping") or {}
        m = ", ".join(f"{k} -> {v}" for k, v in mapping.items())
        m_en, m_ru = (f" map {m}", f" маппинг {m}") if m else ("", "")
        gerund = (en[:-1] if en.endswith("e") else en) + "ing"
        return (
            f"{gerund} {s.dash()}{f_en}",
            f"{ru_doing} {acc}{f_ru}",
            f"{ru_noun} {gen}{f_ru}",
            f"{en} {s.dash()}{f_en}{m_en}",
            f"{ru_req} {acc}{f_ru}{m_ru}",
        )

    return phrases
