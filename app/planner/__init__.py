"""The offline deterministic planner (no network, no LLM): one chat model among others.

It sees what any model sees: the messages (the system text, the turn's facts and the
page's context as prompt blocks, the conversation, the tools' results) and the bound
tools; it answers with an ``AIMessage``. It imports no core module and no tool: the
composition root (``app.llm``) hands it the tools' catalog. What the person can do next
(a choice between candidates, leaving the page's context, "check status") are typed
offers the core puts on the events; the planner writes no offer into its text.

What it knows of each tool is data, one home per tool family: ``tools/<family>.py``
holds its tools' entries (``knowledge.ToolKnowledge``: intent rows, argument reader,
the call's five forms, the answer about a result, the lookup it needs or is), and
``tools/__init__`` joins them into the registry the engine reads. The engine names no
tool, and every sentence it says is a key of ``app/strings.toml`` (``phrases.say``); a
family's answers say their own sentences, the family file's table ``SAID`` of (English,
Russian) pairs.

The modules, read top to bottom (a module uses only those on its line or below):

* ``model`` — the ``BaseChatModel``: messages in, ``plan_reply`` off the event loop;
* ``plan`` — the decision for one model call: a call, a question or an answer;
* ``picks`` (a person's pick completes the earlier request), ``follow_up`` (one more
  step when a result shows less than was asked for), ``answers`` (the capabilities, a
  question for a missing argument, the final answer);
* ``steps`` (a request's intent and the lookup before it), ``turn`` (the current turn's
  steps), ``outcomes`` (refusals and failures, from the refusal's facts);
* ``intents`` (the intent table, joined from the entries' rows), ``known`` (the catalog
  it is handed: what a tool can do, its phrases, its fields), ``actions`` (a call as a
  step, a cancellation or a request);
* ``tools/`` — the knowledge of every tool, by family;
* ``readers`` (arguments read by their names), ``keywords`` (a name after "database",
  "table", …), ``knowledge`` (the shape of an entry);
* ``request`` (one request, pre-digested), ``labels`` (how objects are named),
  ``tables`` (a tabular result in a sentence);
* ``context`` (the turn's facts and page, from the prompt), ``matches`` (which found
  object a name means), ``numbers`` (numbers, counted nouns), ``slots`` (a call's five
  forms and their pieces), ``phrases`` (the engine's sentences, from the catalog);
* ``sqltext`` (the SQL statement and its trailing phrases), ``names`` (a dashboard named
  by title), ``text`` (quotes, env mentions), ``tails`` (phrases read to the end of a
  request), ``results`` (tool results: summarised, refused or failed), ``markup``
  (escaping, quoting, fences: in one place).

Every pattern runs in linear time on any text (``tests/security/test_linear_regexes.py``;
``docs/hostile-text.md``): a person's message is hostile and up to 20,000 characters.
"""

from app.planner.model import OfflinePlanner, tool_name
from app.planner.plan import Reply, plan_reply

__all__ = ["OfflinePlanner", "Reply", "plan_reply", "tool_name"]
