"""run_llm_validation's model review: only with a real configured model, and honest."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx

from app.settings import Settings
from app.tools.dashboards.review import model_review

BUNDLE = SimpleNamespace(
    title="Sales", charts=[{"slice_name": "Revenue", "viz_type": "table"}], datasets=[]
)
FINDINGS = [{"severity": "warning", "object": "dashboard 1", "issue": "no description"}]


def completion(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    assert body["model"] == "local-model" and "Revenue" in body["messages"][1]["content"]
    return httpx.Response(200, json={
        "id": "c1", "object": "chat.completion", "created": 0, "model": "local-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "- Add a description"}}],
    })  # fmt: skip


async def test_offline_planner_means_no_model_review() -> None:
    review = await model_review(Settings(llm_provider="offline"), BUNDLE, FINDINGS)
    assert (review.ran, review.text) == (False, "not configured (offline planner)")


async def test_configured_model_reviews_the_dashboard() -> None:
    settings = Settings(llm_provider="openai", llm_base_url="http://llm.test/v1",
                        llm_model="local-model", llm_api_key="sk-x")  # fmt: skip
    review = await model_review(settings, BUNDLE, FINDINGS, httpx.MockTransport(completion))
    assert (review.ran, review.text) == (True, "- Add a description")


async def test_failing_model_falls_back_to_rules_and_says_so() -> None:
    settings = Settings(llm_provider="openai", llm_base_url="http://llm.test/v1",
                        llm_model="local-model", llm_api_key="sk-x")  # fmt: skip
    down = httpx.MockTransport(lambda r: httpx.Response(503, json={"error": {"message": "x"}}))
    review = await model_review(settings, BUNDLE, FINDINGS, down)
    assert (
        not review.ran and review.text.startswith("failed (") and "rule checks only" in review.text
    )
