"""The optional model review of a dashboard's validation (only with a real configured LLM)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import httpx
import openai
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from app.settings import Settings

log = logging.getLogger(__name__)

_PROMPT = (
    "You review an Apache Superset dashboard for quality. Given its structure and the "
    "rule findings, list at most 5 concrete improvements (naming, chart choice, "
    "descriptions, filters). Be brief; plain text bullets."
)


@dataclass
class Review:
    ran: bool
    text: str


def _summary(bundle: Any, findings: list[dict[str, str]]) -> str:
    charts = [
        {"name": c.get("slice_name"), "viz_type": c.get("viz_type"), "desc": c.get("description")}
        for c in bundle.charts
    ]
    datasets = [d.get("table_name") for d in bundle.datasets]
    data = {"title": bundle.title, "charts": charts, "datasets": datasets, "findings": findings}
    return json.dumps(data, default=str)[:6000]


async def model_review(
    settings: Settings,
    bundle: Any,
    findings: list[dict[str, str]],
    transport: httpx.AsyncBaseTransport | None = None,
) -> Review:
    """Ask the configured model for a review; say plainly when none is configured."""
    if settings.llm_provider != "openai":
        return Review(False, "not configured (offline planner)")

    api_key = settings.llm_api_key or SecretStr("sk-local")
    async with httpx.AsyncClient(timeout=settings.llm_timeout_s, transport=transport) as http:
        llm = ChatOpenAI(
            model=settings.llm_model,
            base_url=settings.llm_base_url,
            api_key=api_key,
            timeout=settings.llm_timeout_s,
            max_retries=0,
            temperature=0,
            http_async_client=http,
        )
        try:
            msg = await llm.ainvoke(
                [SystemMessage(_PROMPT), HumanMessage(_summary(bundle, findings))]
            )
        except openai.OpenAIError as exc:
            log.warning("model review failed: %s", type(exc).__name__)
            return Review(False, f"failed ({type(exc).__name__}); rule checks only")
    return Review(True, str(msg.content).strip())
