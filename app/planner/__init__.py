"""The offline deterministic planner (no network, no LLM): one chat model among others.

It sees what any model sees: the messages (the system text, the turn's facts and the
page's context as prompt blocks, the conversation, the tools' results) and the bound
tools; it answers with an ``AIMessage``. It imports no core module and no tool: the
composition root (``app.llm``) hands it the tools' catalog. What the person can do next
(a choice between candidates, leaving the page's context, "check status") are typed
offers the core puts on the events; the planner writes no offer into its text.

Reading: ``text`` (language, quotes, env mentions), ``sqltext`` (the SQL statement and
its trailing phrases), ``names`` (a dashboard named by title), ``context`` (the turn's
facts and page, from the prompt), ``request``, ``intents`` (the intent table), ``args``/
``args_ops``/``fill`` (arguments), ``keywords`` (a name after "database", "table", …),
``tails`` (phrases read to the end of a request), ``known`` (the tools it is handed),
``turn`` (the current turn's steps), ``results`` (tool results: summarised, refused or
failed), ``picks`` (an answer to its question). Deciding: ``steps`` (intent and
lookups), ``explore`` (tables asked for, schemas shown), ``plan`` (the decision),
``model`` (the ``BaseChatModel``). Saying: ``phrases``,
``actions``/``actions_*``/``slots`` (a call as a step, a cancellation or a request),
``answers`` + ``report_*`` (one-sentence answers), ``outcomes`` (refusals and failures,
from the refusal's facts), ``labels``, ``markup`` (escaping, in one place), ``numbers``.

Every pattern runs in linear time on any text (``tests/security/test_linear_regexes.py``;
``docs/hostile-text.md``): a person's message is hostile and up to 20,000 characters.
"""

from app.planner.model import OfflinePlanner, tool_name
from app.planner.plan import Reply, plan_reply

__all__ = ["OfflinePlanner", "Reply", "plan_reply", "tool_name"]
