"""The offline deterministic planner (no network, no LLM).

Modules: ``text`` (language, quotes, SQL, env mentions), ``context`` (the turn's context
read from the system prompt), ``intents`` (the intent table), ``request``, ``args`` and
``args_ops`` (argument extraction), ``phrases`` and ``answers`` (what it says), ``plan``
(the decision) and ``model`` (the ``BaseChatModel``).
"""

from app.agent.planner.model import OfflinePlanner, tool_name
from app.agent.planner.plan import Reply, plan_reply

__all__ = ["OfflinePlanner", "Reply", "plan_reply", "tool_name"]
