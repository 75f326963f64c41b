"""Where a chat text's code is (fences and code spans), found in linear time.

The spans are those of the regex this module replaces, read with ``finditer``::

    (^\\s{0,3}(```|~~~).*?^\\s{0,3}\\2[^\\n]*$|(`+).+?\\3)      MULTILINE | DOTALL

* a fence: a line that starts (after up to three blanks) with ``````` or ``~~~``, up to
  the end of the next line that starts with the same fence;
* else a code span: a run of backticks from its position (``k`` of them, as many as the
  run has, then fewer), any text, and the first ``k`` backticks after it.

That regex takes quadratic time on an unclosed fence or run (every later position tries
again, to the end of the text) and worse on a long run of backticks (each shorter run is
tried, each to the end). This scan reaches the same spans without trying: a fence's
closing line is looked up among the fence lines, and a span's length is computed from
the lengths of the runs after it (``k`` is the largest that has a closing, in the run
itself or in a later run at least as long).
"""

from __future__ import annotations

import bisect
import re

_FENCE_AT = re.compile(r"\s{0,3}(```|~~~)")  # at a line's start
_NEXT = re.compile(r"(?m)^|`")  # where a fence or a span can start
_RUNS = re.compile(r"`+")
_NEWLINE = re.compile("\n")


class _Runs:
    """The text's runs of backticks: where each ends and the longest one after it."""

    def __init__(self, text: str) -> None:
        runs = [(m.start(), m.end()) for m in _RUNS.finditer(text)]
        self.starts = [s for s, _ in runs]
        self.ends = [e for _, e in runs]
        self.longest_after = [0] * (len(runs) + 1)  # longest run after run i
        for i in range(len(runs) - 1, -1, -1):
            self.longest_after[i] = max(self.longest_after[i + 1], runs[i][1] - runs[i][0])
        self.longest_after = [*self.longest_after[1:], 0]

    def span(self, p: int) -> int | None:
        """The end of the code span that starts at backtick ``p``, if any."""
        i = bisect.bisect_right(self.starts, p) - 1
        r = self.ends[i] - p  # backticks from p to the end of its run
        later = self.longest_after[i]
        k = max((r - 1) // 2, min(r, later))
        if k < 1:
            return None
        if r >= 2 * k + 1:  # the run closes itself
            return p + 2 * k + 1
        j = i + 1
        while self.ends[j] - self.starts[j] < k:  # the first later run that is long enough
            j += 1
        return self.starts[j] + k


class _Fences:
    """The lines that start with a fence, to find the line that closes one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: dict[str, list[int]] = {"```": [], "~~~": []}
        for line in (0, *(m.end() for m in _NEWLINE.finditer(text))):
            if m := _FENCE_AT.match(text, line):
                self.lines[m.group(1)].append(line)

    def block(self, p: int) -> int | None:
        """The end of the fenced block opened at line start ``p``, if it is closed."""
        m = _FENCE_AT.match(self.text, p)
        if m is None:
            return None
        lines = self.lines[m.group(1)]
        i = bisect.bisect_left(lines, m.end())
        if i == len(lines):
            return None
        close = _FENCE_AT.match(self.text, lines[i])
        assert close is not None
        end = self.text.find("\n", close.end())
        return len(self.text) if end < 0 else end


def code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every fence and code span, in order (see the module docstring)."""
    runs, fences = _Runs(text), _Fences(text)
    spans: list[tuple[int, int]] = []
    pos = 0
    while pos < len(text) and (m := _NEXT.search(text, pos)) is not None:
        p = m.start()
        at_line_start = p == 0 or text[p - 1] == "\n"
        end = fences.block(p) if at_line_start else None
        if end is None and text.startswith("`", p):
            end = runs.span(p)
        if end is None:
            pos = p + 1
        else:
            spans.append((p, end))
            pos = end
    return spans
