"""Process-wide agent runtime: the compiled graph (per event loop, since checkpointers are
loop-bound) and the chat model. Tests may install their own graph factory."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from app.agent.checkpoint import get_checkpointer

GraphFactory = Callable[[], Awaitable[Any]]

_GRAPHS: dict[int, Any] = {}
_FACTORY: GraphFactory | None = None
_MODEL: Any = None


def get_model() -> Any:
    global _MODEL
    if _MODEL is None:
        from app.agent.llm import get_chat_model

        _MODEL = get_chat_model()
    return _MODEL


def get_model_label() -> str:
    from app.agent.llm import model_label

    return model_label(get_model())


async def _default_factory() -> Any:
    from app.agent.graph import build_graph

    return build_graph(model=get_model(), checkpointer=await get_checkpointer())


async def get_graph() -> Any:
    loop = asyncio.get_running_loop()
    key = id(loop)
    entry = _GRAPHS.get(key)
    if entry is None or entry[0]() is not loop:  # none yet, or a dead loop's id reused
        entry = (weakref.ref(loop), await (_FACTORY or _default_factory)())
        _GRAPHS[key] = entry
    return entry[1]


def set_graph_factory(factory: GraphFactory | None, model: Any = None) -> None:
    """Install a graph factory (tests); ``None`` restores the default. Drops cached graphs."""
    global _FACTORY, _MODEL
    _FACTORY = factory
    _MODEL = model
    _GRAPHS.clear()


def reset_runtime() -> None:
    set_graph_factory(None)
