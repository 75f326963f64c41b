"""The typed presentations of tool results (docs/contract.md, decision 9: presented, not dumped).

A :data:`ToolView` travels on ``ToolEndEvent.view`` next to the result text: the page
renders it inside the tool card; an HTTP or MCP client may read it as data. The models
are language-neutral: column and fact ``key``s are vocabulary the page translates
(``col_<key>`` in ``app.i18n``), a column with a ``label`` carries data (an SQL column's
name) shown as is. Every link points into the call's own Superset (built from the
environment's base URL, never copied from Superset data); no internal file path is ever
part of a view.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Cell = str | int | float | bool | None


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Cut(_View):
    """What was left out of a result to keep it within the product's caps (``app.caps``):
    the page, the HTTP events and the MCP result say so in words."""

    rows: int = 0  # rows (or items) not kept
    cells: int = 0  # values shortened ...
    cell_chars: int = 0  # ... to this many characters
    chars: int = 0  # characters of a text not kept

    def __add__(self, other: Cut) -> Cut:
        return Cut(
            rows=self.rows + other.rows,
            cells=self.cells + other.cells,
            cell_chars=max(self.cell_chars, other.cell_chars),
            chars=self.chars + other.chars,
        )


class Column(_View):
    key: str
    label: str | None = None  # None: the page translates ``key``; else data, shown as is
    numeric: bool = False
    link: bool = False  # the cells are URLs into the environment's Superset
    words: bool = False  # the cells are codes the page says in words (``<key>_<code>``)


class TableView(_View):
    """Rows and columns: SQL results, backups, environments, roles, capabilities."""

    kind: Literal["table"] = "table"
    cut: Cut | None = None  # what the caps left out, if anything
    columns: list[Column]
    rows: list[list[Cell]]
    row_count: int = 0  # rows the source returned (the table may show fewer)
    truncated: bool = False  # the source had more rows than it returned
    csv_name: str = "result"


class Detail(_View):
    key: str  # vocabulary: owners, changed_at, slug, backend ...
    value: Cell


class LinkedItem(_View):
    title: str
    url: str | None = None
    id: str | int | None = None
    details: list[Detail] = Field(default_factory=list)


class LinkedListView(_View):
    """Superset objects whose titles link to the object in its Superset (new tab)."""

    kind: Literal["linked_list"] = "linked_list"
    cut: Cut | None = None  # what the caps left out, if anything
    object_type: str  # dashboard | dataset | database
    items: list[LinkedItem]
    total: int = 0
    env: str | None = None


class HealthProblem(_View):
    name: str
    status: str  # failing | slow | empty | unchecked | stale
    reason: str = ""
    url: str | None = None


HEALTH_STATUSES: tuple[str, ...] = ("ok", "failing", "slow", "stale", "empty", "unchecked")


class HealthView(_View):
    """A dashboard's charts by status, and what is wrong with the ones that are not ok."""

    kind: Literal["health"] = "health"
    cut: Cut | None = None  # what the caps left out, if anything
    dashboard: LinkedItem
    verdict: str  # ok | warning | broken
    counts: dict[str, int]  # HEALTH_STATUSES order; ``stale`` counts datasets
    problems: list[HealthProblem] = Field(default_factory=list)
    env: str | None = None


class Fact(_View):
    key: str
    value: Cell
    url: str | None = None


class FactsView(_View):
    """A few labelled values: what a write did (deleted, backed up, committed ...)."""

    kind: Literal["facts"] = "facts"
    cut: Cut | None = None  # what the caps left out, if anything
    facts: list[Fact]


class TaskRow(_View):
    task_id: str
    kind: str = ""
    status: str = ""
    step: int | None = None
    total: int | None = None
    message: str = ""
    error: str | None = None
    env_id: str | None = None
    updated_at: str | None = None


class TasksView(_View):
    kind: Literal["tasks"] = "tasks"
    cut: Cut | None = None  # what the caps left out, if anything
    tasks: list[TaskRow]


DiffAction = Literal["create", "overwrite", "skip", "keep", "map"]


class DiffRow(_View):
    object_type: str  # dashboard | chart | dataset | database
    name: str
    action: str  # DiffAction; an unknown word is shown as is
    target: str | None = None
    url: str | None = None


class DiffView(_View):
    """What a migration, deploy or restore creates or overwrites on its target."""

    kind: Literal["diff"] = "diff"
    cut: Cut | None = None  # what the caps left out, if anything
    source_env: str | None = None
    target_env: str | None = None
    rows: list[DiffRow]
    counts: dict[str, dict[str, int]] = Field(default_factory=dict)  # kind -> action -> n
    errors: list[str] = Field(default_factory=list)


class TextView(_View):
    kind: Literal["text"] = "text"
    cut: Cut | None = None  # what the caps left out, if anything
    text: str
    format: Literal["plain", "markdown", "code"] = "plain"
    language: str | None = None  # of a code block, e.g. sql


ToolView = Annotated[
    TableView | LinkedListView | HealthView | FactsView | TasksView | DiffView | TextView,
    Field(discriminator="kind"),
]
