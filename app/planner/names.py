"""A dashboard named by its title in a request ("dashboard Sales demo", "the Sales demo
dashboard", «дашборд "Продажи"»), to be looked up with the search tool.

Read from the request with its SQL replaced and its quoted fragments blanked (``scan``):

* after "dashboard"/«дашборд» (optionally "named"/"called"/«с названием»): the words up
  to a stop — punctuation, a linking word ("with", "for", "and", «для», «и»…), or a
  preposition that introduces an environment ("in dev", "from dev to prod", «на проде»);
* in English also before "dashboard" after the nearest "the"/"my"/"our" ("the Sales
  demo dashboard"), when those words are not function words.

* where a dashboard is required and no keyword names one, a capitalised word that does
  not start a sentence, with the words after it ("check the health of Sales demo",
  «проверь здоровье Sales»).

A title that holds such words can always be quoted: «дашборд "Продажи в регионах"».
"""

from __future__ import annotations

import re

_KEYWORD = re.compile(
    r"(?:\bdashboards?\b|дашборд\w*)(?:\s+(?:named|called|titled|с\s+названием"
    r"|под\s+названием|с\s+именем))?",
    re.IGNORECASE,
)
_ALWAYS_STOP = frozenset(
    "with for and because using please now then so via but or which that"
    " и для потому чтобы пожалуйста сейчас затем или но который которая".split()
)
_ENV_PREPOSITIONS = frozenset("in on at from to into onto off of в во на с со из".split())
_NOT_A_NAME = frozenset(
    "this that it its the a an my our your current open here there id ids number no"
    " health status state quality documentation docs description descriptions backups backup"
    " errors issues problems again list all every some any changes page pages"
    " is are was were has have had do does did can could should will would"
    " what which who how why when where"
    " этот эту этого этом этим данный данного текущий текущего открытый мой моего наш"
    " здоровье состояние качество документацию документация описание бэкап бэкапы бэкапов"
    " ошибки проблемы номер все список изменения страница странице".split()
)
_FUNCTION_WORDS = _NOT_A_NAME | _ALWAYS_STOP | _ENV_PREPOSITIONS | {"is", "are", "was"}
_ARGUMENT = re.compile(r"(?:сообщени|комментари|текст|именем|названием|message)", re.I)
MAX_WORDS = 6
MAX_WORDS_BEFORE = 4  # "the Sales demo dashboard"


_TOKEN = re.compile(r"[^\s,;:!?()]+|[,;:!?()]")
_NUMBER = re.compile(r"\A[#№]?\d++\Z")


def _after(scan: str, start: int, env_pattern: re.Pattern[str]) -> str | None:
    words: list[str] = []
    tokens = _TOKEN.finditer(scan, start)  # read lazily: a name has at most MAX_WORDS
    token = next(tokens, None)
    while token is not None:
        following = next(tokens, None)
        word = token.group(0)
        lower = word.lower()
        if word in ",;:!?()" or lower in _ALWAYS_STOP or lower == "sqlquery":
            break
        if lower in _ENV_PREPOSITIONS:
            nxt = following.group(0) if following is not None else ""
            if not nxt or env_pattern.fullmatch(nxt.rstrip(".")) or _ARGUMENT.match(nxt):
                break
        if not words and (
            lower in _NOT_A_NAME or lower in _ENV_PREPOSITIONS or env_pattern.fullmatch(word)
        ):
            return None
        words.append(word)
        if word.endswith(".") or len(words) >= MAX_WORDS:
            break
        token = following
    name = " ".join(words).rstrip(".")
    return name or None


def _last_words(text: str, end: int, count: int) -> list[str]:
    """The last ``count`` blank-separated words of ``text[:end]`` (``str.split``'s
    words), read backwards from ``end``."""
    words: list[str] = []
    i = end
    while len(words) < count:
        while i > 0 and text[i - 1].isspace():
            i -= 1
        if i == 0:
            break
        j = i
        while j > 0 and not text[j - 1].isspace():
            j -= 1
        words.append(text[j:i])
        i = j
    return words[::-1]


def _before(scan: str, end: int) -> str | None:
    # the nearest "the"/"my"/"our" and the words after it, at most four: five words read
    return name_after_article(_last_words(scan, end, MAX_WORDS_BEFORE + 1))


def name_after_article(words: list[str]) -> str | None:
    """The words after the last "the"/"my"/"our" of ``words``, when they can be a title:
    at most four, none of them a function word."""
    for i in range(len(words) - 1, -1, -1):
        if words[i].lower() not in ("the", "my", "our"):
            continue
        name = words[i + 1 :]
        if not name:
            continue
        if len(name) > MAX_WORDS_BEFORE or any(
            w.lower().strip(".,") in _FUNCTION_WORDS for w in name
        ):
            return None
        return " ".join(name)
    return None


# the keyword, blanks taken whole, then a quote (a search fails at once after a keyword
# that no quote follows; a Russian ending is at most 30 letters, so a word that repeats
# the keyword is not read again from each repetition)
_QUOTE_AFTER_KEYWORD = re.compile(
    r"(?:\bdashboards?\b|дашборд\w{0,30}+)(?:\s++(?:named|called|titled|с\s+названием"
    r"|под\s+названием|с\s+именем))?\s*+[\"'«“„`]",
    re.IGNORECASE,
)
SLUG = re.compile(r"\A[a-z0-9]++(?:[-_][a-z0-9]++)++\Z")


def quoted_after_keyword(prefix: str) -> bool:
    """Whether a quoted fragment follows "dashboard" (it is then the dashboard's title)."""
    return bool(_QUOTE_AFTER_KEYWORD.search(prefix))


def dashboard_name(scan: str, env_pattern: re.Pattern[str]) -> str | None:
    """The dashboard title the request names (not an id, not "this"), if any."""
    for m in _KEYWORD.finditer(scan):
        name = _after(scan, m.end(), env_pattern)
        if name is None and m.group(0).lower().startswith("dashboard"):
            name = _before(scan, m.start())
        if name and not _NUMBER.fullmatch(name):
            return name
    return None


_CAPITALISED = re.compile(r"(?<=\s)[A-ZА-ЯЁ][\w-]*")
_NOT_A_TITLE = frozenset("i sql db id api ok".split())


def capitalised_name(scan: str, env_pattern: re.Pattern[str]) -> str | None:
    """A title no keyword introduces: the first capitalised word that does not start a
    sentence and is no environment or function word, and the words after it."""
    for m in _CAPITALISED.finditer(scan):
        before = m.start()  # the last character before the word's blanks
        while before > 0 and scan[before - 1].isspace():
            before -= 1
        word = m.group(0)
        if before == 0 or scan[before - 1] in ".!?:;" or env_pattern.fullmatch(word):
            continue
        if word.lower() in _FUNCTION_WORDS or word.lower() in _NOT_A_TITLE:
            continue
        name = _after(scan, m.start(), env_pattern)
        if name and not _NUMBER.fullmatch(name):
            return name
    return None
