"""The offline deterministic planner (no network, no LLM).

Reading: ``text`` (language, quotes, env mentions), ``sqltext`` (the SQL statement and its
trailing phrases), ``names`` (a dashboard named by title), ``context`` (the turn's
context), ``request``, ``intents`` (the intent table), ``args``/``args_ops`` (arguments),
``turn`` (the current turn's steps), ``results`` (tool results, summarised or not).
Deciding: ``steps`` (intent and lookups), ``plan`` (the decision), ``model`` (the
``BaseChatModel``). Saying: ``phrases``, ``actions``/``actions_*``/``slots`` (a call as a
step, a cancellation or a request), ``answers`` + ``report_*`` (one-sentence answers),
``outcomes`` (refusals), ``offers`` (choices for the page), ``labels``, ``markup``
(escaping, in one place), ``numbers``.
"""

from app.planner.model import OfflinePlanner, tool_name
from app.planner.plan import Reply, plan_reply

__all__ = ["OfflinePlanner", "Reply", "plan_reply", "tool_name"]
