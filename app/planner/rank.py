"""Which tools a request most likely asks for: the planner's reading, as a ranking.

A chat model is offered the few tools a request most likely needs rather than every tool
(``app.agent.tool_offer`` narrows the offer; the composition root hands it this ranking,
so no core module imports the planner). The ranking reads a request the way the planner
does, and adds what the tools' own texts say:

* the intent table (:mod:`app.planner.intents`): every row whose *strong* pattern the
  request matches (the first one most), then the tools whose declared phrases it says
  (``can``, ``example``, ``triggers``: :mod:`app.planner.known`), then the *weak* rows;
* the lookup the planner would run first (a dashboard named by its title is searched
  for, a backup named by a short id is listed): that tool just after the intended one;
* a lexical score over each tool's own texts in both languages (its name, description,
  ``can``, ``example``, ``triggers`` and argument descriptions): word stems (the first
  :data:`STEM` letters of a word, which folds most English and Russian endings) weighted
  by how few tools use them. It orders the candidates the table found and adds tools the
  table does not know; on its own it is never enough to narrow.

:meth:`ToolRanker.__call__` answers the candidates best first, or nothing when the
request matches no row and no declared phrase (the caller then offers every tool). A
request the table reads as asking for no tool (deleting a backup) also answers nothing.
A message that asks for nothing by itself (an answer to the planner's question, a
pick such as "dashboard 7 in dev") is read together with the message before it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from app.planner.context import TurnContext
from app.planner.intents import NO_TOOL, matching
from app.planner.known import Known
from app.planner.request import Request
from app.planner.steps import intent_for
from app.policy import ToolSpec

#: letters a word is cut to before comparing ("dashboards" and "dashboard" → "dashb";
#: «бэкапы», «бэкапов» → «бэкап»)
STEM = 5
#: what each kind of evidence weighs (the lexical score adds at most about 1)
FIRST_STRONG, STRONG, HEARD, FIRST_WEAK, WEAK = 10.0, 6.0, 5.0, 3.0, 2.0
#: a candidate must weigh at least this much (a weak row) to be offered, and at least
#: this share of the best one (a request that names an action leaves the generic words'
#: tools out: fewer tools to choose among for a small model)
MIN_SCORE = WEAK
MIN_SHARE = 0.5
_WORD = re.compile(r"[^\W\d_]{3,}")
_STOP = frozenset(
    "the and for with from this that what which you your can could are there here please "
    "about into all any some have has had was were will would should how does did not "
    "как что это эти этот эту для при все всё мне меня мой моя мои есть или так там "
    "где чем они его она оно уже ещё еще".split()
)

Catalog = Mapping[str, ToolSpec]


def stems(text: str) -> list[str]:
    """The word stems of ``text`` (lower case, :data:`STEM` letters, no stop words)."""
    words = _WORD.findall(text.lower().replace("ё", "е"))
    return [w[:STEM] for w in words if w not in _STOP]


def tool_text(spec: ToolSpec) -> str:
    """Everything a tool says of itself, in both languages."""
    parts = [spec.name.replace("_", " "), spec.description, *spec.triggers]
    for pair in (spec.can, spec.example):
        if pair is not None:
            parts += [pair.en, pair.ru]
    for info in spec.args_model.model_fields.values():
        parts.append(info.description or "")
    return " ".join(parts)


class _Index:
    """The lexical index of one catalog: each tool's stems, and each stem's weight."""

    def __init__(self, catalog: Catalog) -> None:
        self.stems = {name: set(stems(tool_text(spec))) for name, spec in catalog.items()}
        counts = Counter(s for found in self.stems.values() for s in found)
        total = max(1, len(self.stems))
        self.weight = {s: math.log(1 + total / n) for s, n in counts.items()}

    def scores(self, text: str) -> dict[str, float]:
        """Each tool's share of the request's stems' weight (0 to 1)."""
        asked = set(stems(text))
        whole = sum(self.weight.get(s, 0.0) for s in asked)
        if not whole:
            return {}
        return {
            name: sum(self.weight[s] for s in asked & found) / whole
            for name, found in self.stems.items()
            if asked & found
        }


class ToolRanker:
    """Ranks the tools of the catalog ``catalog()`` returns (read on each call, so a
    changed policy file's catalog is ranked) for one request (see the module)."""

    def __init__(self, catalog: Callable[[], Catalog]) -> None:
        self._catalog = catalog
        self._seen: tuple[Catalog, Known, _Index] | None = None

    def _parts(self) -> tuple[Known, _Index]:
        catalog = self._catalog()
        if self._seen is None or self._seen[0] is not catalog:
            self._seen = (catalog, Known(catalog), _Index(catalog))
        return self._seen[1], self._seen[2]

    def scores(self, text: str, among: Sequence[str]) -> dict[str, float]:
        """Each tool of ``among`` the request gives evidence for, with its weight."""
        known, index = self._parts()
        req = Request.build(text, TurnContext())
        lowered = req.prefix.lower()
        strong, weak = matching(lowered)
        if strong and strong[0] == NO_TOOL:
            return {}
        score: dict[str, float] = {}

        def add(tool: str, weight: float) -> None:
            if tool and tool in among:
                score[tool] = max(score.get(tool, 0.0), weight)

        for i, tool in enumerate(strong):
            add(tool, FIRST_STRONG if i == 0 else STRONG)
        for tool in known.heard(lowered):
            add(tool, HEARD)
        for i, tool in enumerate(weak):
            add(tool, FIRST_WEAK if i == 0 else WEAK)
        if score:
            intent = intent_for(req, among, known)
            if intent is not None and intent.lookup is not None:
                add(intent.lookup.tool, score.get(intent.tool, FIRST_WEAK) - 0.5)
        for tool, share in index.scores(text).items():
            if tool in among:
                score[tool] = score.get(tool, 0.0) + share
        return score

    def asks(self, text: str) -> bool:
        """Whether ``text`` names something to do (a strong row or a declared phrase), as
        the planner decides whether a message is a request or an answer to its question."""
        known, _ = self._parts()
        lowered = Request.build(text, TurnContext()).prefix.lower()
        return bool(matching(lowered)[0] or known.heard(lowered))

    def __call__(self, said: Sequence[str], among: Sequence[str]) -> list[str]:
        """The tools of ``among`` the person's latest message most likely asks for, best
        first (those with at least :data:`MIN_SCORE` and :data:`MIN_SHARE` of the best);
        none when it gives no such evidence. ``said``: their messages, oldest first: a
        latest one that asks for nothing by itself (an answer, a pick: "dashboard 7 in
        dev") is read together with the one before, as the planner reads it."""
        if not said:
            return []
        text = said[-1]
        if len(said) > 1 and not self.asks(text) and self.asks(f"{said[-2]}\n{text}"):
            text = f"{said[-2]}\n{text}"
        score = self.scores(text, among)
        floor = max(MIN_SCORE, MIN_SHARE * max(score.values(), default=0.0))
        ranked = sorted(score, key=lambda tool: (-score[tool], among.index(tool)))
        return [tool for tool in ranked if score[tool] >= floor]
