"""End to end: an agent instrumented with OpenInference's OpenAI instrumentation
(from PyPI), the openai client pointed at a model server of the test's own, traced
through the SDK into the real service; what the service then shows, with the
workspace's capture on and off, and when the capture lookup fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

from fake_openai import COMPLETION_TOKENS, MODEL, PROMPT_TOKENS, fake_openai
from loopback import LoopbackServer, Reply
from proxy import IngestProxy
from service_stack import KEY, Service

SRC = Path(__file__).resolve().parents[1] / "src"
APP = Path(__file__).resolve().with_name("agent_app.py")
# gpt-4o in the bundled price table: $2.50 per 1M input tokens, $10 per 1M output tokens.
COST = PROMPT_TOKENS * 2.5 / 1e6 + COMPLETION_TOKENS * 10 / 1e6
TEXT_KEYS = {
    "input.value", "output.value", "llm.input_messages.0.message.content", "llm.output_messages.0.message.content",
    "gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
}


@pytest.fixture(scope="module")
def model() -> Iterator[LoopbackServer]:
    s = fake_openai()
    yield s
    s.close()


@pytest.fixture
def proxy(service: Service) -> Iterator[IngestProxy]:
    p = IngestProxy(service.ingest_url)
    yield p
    p.close()


def run_app(proxy: IngestProxy, model: LoopbackServer, secret: str, **env: str) -> Dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(APP)],
        env={**os.environ, "PYTHONPATH": str(SRC), "SVC_API_KEY": KEY, "SVC_ENDPOINT": proxy.url, "OPENAI_BASE_URL": model.url + "/v1", "SECRET": secret, **env},
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out: Dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["answer"] == f"You asked: {secret} where is my order?"
    return out


def stored(service: Service, trace_id: str) -> Dict[str, Dict[str, Any]]:
    """The trace's spans by OpenInference kind, once all four are in and priced."""
    detail = service.trace(trace_id, spans=4)
    assert abs(detail["total_cost_usd"] - COST) < 1e-9, detail["total_cost_usd"]
    return {s["attributes"]["openinference.span.kind"]: s for s in detail["spans"]}


def assert_shape(service: Service, trace_id: str, spans: Dict[str, Dict[str, Any]]) -> None:
    """Model, tokens, cost, span kinds and tags: all there whatever the capture setting."""
    assert set(spans) == {"AGENT", "RETRIEVER", "TOOL", "LLM"}
    agent, llm = spans["AGENT"], spans["LLM"]
    assert agent["name"] == "invoke_agent support-bot" and agent["parent_span_id"] is None
    assert spans["RETRIEVER"]["name"] == "retrieval kb" and spans["TOOL"]["name"] == "execute_tool lookup_order"
    assert {s["kind"] for s in spans.values()} == {"INTERNAL"}
    for s in spans.values():
        assert s["attributes"]["svc.end_user"] == "user-77"
        if s is not agent:
            assert s["parent_span_id"] == agent["span_id"]
    assert llm["model"] == MODEL and llm["attributes"]["llm.model_name"] == MODEL
    assert (llm["input_tokens"], llm["output_tokens"]) == (PROMPT_TOKENS, COMPLETION_TOKENS)
    assert abs(llm["cost_usd"] - COST) < 1e-9
    assert llm["attributes"]["llm.input_messages.0.message.role"] == "user"
    assert spans["TOOL"]["attributes"]["gen_ai.tool.name"] == "lookup_order"
    row = service.trace_row(trace_id)
    assert (row["input_tokens"], row["output_tokens"], row["span_count"]) == (PROMPT_TOKENS, COMPLETION_TOKENS, 4)
    assert abs(row["cost_usd_total"] - COST) < 1e-9
    assert row["project_id_out"] == "checkout-bot"


def test_capture_on_the_text_of_every_span_arrives(service: Service, proxy: IngestProxy, model: LoopbackServer) -> None:
    service.set_capture(True)
    secret = f"SECRET-on-{time.time_ns()}"
    out = run_app(proxy, model, secret)
    assert (out["capture_text"], out["error"]) == (True, None)
    assert secret in proxy.exported()
    spans = stored(service, out["trace_id"])
    assert_shape(service, out["trace_id"], spans)
    llm = spans["LLM"]["attributes"]
    assert llm["llm.input_messages.0.message.content"] == f"{secret} where is my order?"
    assert llm["llm.output_messages.0.message.content"] == f"You asked: {secret} where is my order?"
    assert secret in json.dumps(llm["input.value"])
    assert spans["TOOL"]["attributes"]["gen_ai.tool.call.result"] == secret
    assert spans["AGENT"]["attributes"]["input.value"] == f"{secret} agent input"


def test_capture_off_no_text_leaves_the_process(service: Service, proxy: IngestProxy, model: LoopbackServer) -> None:
    service.set_capture(False)
    secret = f"SECRET-off-{time.time_ns()}"
    out = run_app(proxy, model, secret)
    assert (out["capture_text"], out["error"]) == (False, None)
    sent = proxy.exported()
    assert "llm.model_name" in sent and secret not in sent
    spans = stored(service, out["trace_id"])
    assert_shape(service, out["trace_id"], spans)
    assert secret not in json.dumps(spans)
    for s in spans.values():
        assert not TEXT_KEYS & set(s["attributes"]), s["name"]


def test_fail_closed_capture_on_at_the_server_but_the_lookup_fails(service: Service, proxy: IngestProxy, model: LoopbackServer) -> None:
    service.set_capture(True)
    proxy.sdk_config_fault = Reply(500, {"error": {"code": "internal", "message": "injected"}})
    secret = f"SECRET-fail-{time.time_ns()}"
    out = run_app(proxy, model, secret)
    assert out["capture_text"] is False and "500" in out["error"]
    sent = proxy.exported()
    assert "llm.model_name" in sent and secret not in sent
    spans = stored(service, out["trace_id"])
    assert_shape(service, out["trace_id"], spans)
    # The workspace captures text, yet none was stored: the SDK never sent it.
    assert secret not in json.dumps(spans)
