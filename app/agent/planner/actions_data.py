"""Phrases for the data, task, environment and maintenance tools (see
:mod:`app.agent.planner.actions`)."""

from __future__ import annotations

from app.agent.planner.slots import Slots, Texts, env_phrase


def tasks(s: Slots) -> Texts:
    if t := s.v("task_id"):
        return (
            f"checking task {t}",
            f"проверяю задачу {t}",
            f"проверку задачи {t}",
            f"status of task {t}",
            f"статус задачи {t}",
        )
    return (
        "listing your recent tasks",
        "показываю ваши последние задачи",
        "список задач",
        "status of my tasks",
        "статус моих задач",
    )


def explore(s: Slots) -> Texts:
    if not (s.v("database") or s.v("schema") or s.v("table")):
        return (
            "listing the databases" + env_phrase(s, "en"),
            "показываю базы данных" + env_phrase(s, "ru"),
            "просмотр баз данных",
            "show databases" + env_phrase(s, "en"),
            "покажи базы данных" + env_phrase(s, "ru"),
        )
    en = " ".join(f"{k} {s.v(k)}" for k in ("database", "schema", "table") if s.v(k))
    ru_parts = (("database", "базу"), ("schema", "схему"), ("table", "таблицу"))
    ru = " ".join(f"{w} {s.v(k)}" for k, w in ru_parts if s.v(k))
    noun_parts = (("database", "база"), ("schema", "схема"), ("table", "таблица"))
    noun = "просмотр: " + ", ".join(f"{w} {s.v(k)}" for k, w in noun_parts if s.v(k))
    return (
        f"exploring {en}",
        f"смотрю {ru}",
        noun,
        f"explore {en}{env_phrase(s, 'en')}",
        f"покажи {ru}{env_phrase(s, 'ru')}",
    )


def where_sql(s: Slots, verb_en: str, verb_ru: str) -> tuple[str, str]:
    where_en = s.pre("database", "on database", "", "en") + s.pre("schema", "in schema", "", "en")
    where_ru = s.pre("database", "", "в базе", "ru") + s.pre("schema", "", "в схеме", "ru")
    return f"{verb_en}{where_en}{env_phrase(s, 'en')}", f"{verb_ru}{where_ru}{env_phrase(s, 'ru')}"


def execute(s: Slots) -> Texts:
    en, ru = where_sql(s, "run sql", "выполни sql")
    limit = s.args.get("row_limit")
    if limit not in (None, 100):
        en, ru = f"{en} with row_limit {limit}", f"{ru}, row_limit {limit}"
    sql = s.v("sql")
    return (
        f"running the query{en[7:]}",
        f"выполняю запрос{ru[11:]}",
        "выполнение запроса",
        f"{en}: {sql}",
        f"{ru}: {sql}",
    )


def format_sql(s: Slots) -> Texts:
    sql = s.v("sql")
    return (
        "formatting the SQL",
        "форматирую SQL",
        "форматирование SQL",
        f"format sql{env_phrase(s, 'en')}: {sql}",
        f"отформатируй sql{env_phrase(s, 'ru')}: {sql}",
    )


def dataset(s: Slots) -> Texts:
    t, db = s.v("table_name"), s.pre("database", "in database", "в базе", "en")
    db_ru = s.pre("database", "", "в базе", "ru")
    sch_en, sch_ru = s.pre("schema", "in schema", "", "en"), s.pre("schema", "", "в схеме", "ru")
    if s.v("sql"):
        en = f"create dataset named {t}{sch_en}{db}{env_phrase(s, 'en')}: {s.v('sql')}"
        ru = f"создай датасет с именем {t}{sch_ru}{db_ru}{env_phrase(s, 'ru')}: {s.v('sql')}"
    else:
        en = f"create dataset from table {t}{sch_en}{db}{env_phrase(s, 'en')}"
        ru = f"создай датасет из таблицы {t}{sch_ru}{db_ru}{env_phrase(s, 'ru')}"
    return (
        f"creating dataset {t}{db}",
        f"создаю датасет {t}{db_ru}",
        f"создание датасета {t}",
        en,
        ru,
    )


def audit(s: Slots) -> Texts:
    r_en, r_ru = s.pre("role", "of role", "", "en"), s.pre("role", "", "роли", "ru")
    e_en, e_ru = env_phrase(s, "en"), env_phrase(s, "ru")
    return (
        f"auditing the permissions{r_en}{e_en}",
        f"проверяю права{r_ru}{e_ru}",
        "аудит прав",
        f"audit permissions{s.pre('role', 'for role', '', 'en')}{e_en}",
        f"проверь права доступа{s.pre('role', '', 'для роли', 'ru')}{e_ru}",
    )


def start_maint(s: Slots) -> Texts:
    minutes = s.v("duration_minutes")
    d_en, d_ru = (f" for {minutes} minutes", f" на {minutes} минут") if minutes else ("", "")
    reason = s.v("reason")
    r_en, r_ru = (f" because {reason}", f", причина: {reason}") if reason else ("", "")
    en, ru = f"{s.pre('env_id', 'on', '', 'en')}{d_en}", f"{env_phrase(s, 'ru')}{d_ru}"
    return (
        f"starting maintenance{en}",
        f"включаю обслуживание{ru}",
        f"обслуживание{ru}",
        f"start maintenance{en}{r_en}",
        f"включи обслуживание{ru}{r_ru}",
    )


def end_maint(s: Slots) -> Texts:
    en, ru = s.pre("env_id", "on", "", "en"), env_phrase(s, "ru")
    return (
        f"ending maintenance{en}",
        f"завершаю обслуживание{ru}",
        f"завершение обслуживания{ru}",
        f"end maintenance{en}",
        f"заверши обслуживание{ru}",
    )
