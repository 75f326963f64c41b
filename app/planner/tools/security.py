"""The offline planner's knowledge of the security tools: the permission audit."""

from __future__ import annotations

from typing import Any

from app.planner.keywords import AFTER_ROLE, STOP
from app.planner.knowledge import ToolKnowledge, row
from app.planner.labels import env_in
from app.planner.markup import md_escape
from app.planner.numbers import counted
from app.planner.phrases import sayer
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import CallText, Slots, Texts, phrased
from app.planner.text import Lang

#: words after "roles" that name no role ("which roles can see everything?")
_NOT_A_ROLE = STOP | frozenset("can could may see sees get gets which who that have".split())


def _audit_args(req: Request) -> dict[str, Any]:
    role = req.name_after(AFTER_ROLE, stop=_NOT_A_ROLE)
    return {"env_id": req.env_id(), "role": role or (req.quoted[0] if req.quoted else None)}


_AUDIT = CallText(
    doing=("auditing the permissions{of_role}{env}", "проверяю права{of_role}{env}"),
    ru_noun="аудит прав",
    request=("audit permissions{for_role}{env}", "проверь права доступа{for_role}{env}"),
)


def _audit_said(s: Slots) -> Texts:
    of_role, for_role = s.both("role", "of role", "роли"), s.both("role", "for role", "для роли")
    return phrased(_AUDIT, s, of_role=of_role, for_role=for_role)


#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    "role_audited": (
        "Role {name}{env} has {perms} and {users}; {grants}",
        "У роли {name}{env} прав — {perms}, пользователей — {users}; {grants}",
    ),
    "role_grants": ("{flags}.", "слишком широких прав — {flags}."),
    "role_no_grants": ("no over-broad grants.", "слишком широких прав нет."),
    "roles_audited": (
        "Audited {roles} roles and {users} users{env}",
        "Проверил роли ({roles}) и пользователей ({users}){env}",
    ),
    "roles_grants": ("; over-broad grants in {flagged}.", "; слишком широкие права у: {flagged}."),
    "roles_no_grants": ("; no role has over-broad grants.", "; слишком широких прав нет."),
}


_say = sayer(SAID)


def _audited(args: dict[str, Any], result: Result, lang: Lang) -> str:
    roles = [r for r in result.items("roles") if isinstance(r, dict)]
    env = env_in(result.get("env") or args.get("env_id"), lang)
    if len(roles) == 1:
        role = roles[0]
        flags = len(role.get("flags") or [])
        grants = ("over-broad grant", "over-broad grants")
        return _say(
            "role_audited",
            lang,
            name=md_escape(role.get("name")),
            env=env,
            perms=counted(
                int(role.get("permission_count") or 0), ("permission", "permissions"), lang
            ),
            users=counted(len(role.get("users") or []), ("user", "users"), lang),
            grants=_say("role_grants", lang, flags=counted(flags, grants, lang))
            if flags
            else _say("role_no_grants", lang),
        )
    head = _say(
        "roles_audited", lang, roles=len(roles), users=result.get("user_count") or 0, env=env
    )
    flagged = [md_escape(r) for r in result.items("flagged_roles")]
    if not flagged:
        return head + _say("roles_no_grants", lang)
    return head + _say("roles_grants", lang, flagged=", ".join(flagged))


TOOLS = (
    ToolKnowledge(
        "superset_audit_permissions",
        rows=(
            row(
                180,
                [
                    r"\bpermissions?\b|access\s+rights|who\s+(?:has|can)\s+access|\brbac\b",
                    # "which roles can see everything?", "over-broad grants"
                    r"\broles?\b.{0,30}\b(?:see|access|read)\b|\bgrants?\b|over[\s-]?broad"
                    r"|too\s+broad",
                    r"\bрол[иья]\w*.{0,30}(?:вид|доступ)\w*|избыточн\w*\s+(?:прав|доступ)\w*",
                    r"\baudit\b(?!\s+(?:of\s+)?(?:this\s+|the\s+|my\s+)?dashboard)",
                    r"прав\w*\s+доступ\w*|\bправа\b|аудит\w*|полномочи\w*"
                    r"|у\s+кого\s+(?:есть\s+)?доступ",
                ],
            ),
        ),
        read_args=_audit_args,
        phrase=_audit_said,
        report=_audited,
    ),
)
