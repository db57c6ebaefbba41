"""Agent, tool and retrieval spans and the end-user / project scopes, as context
managers and as decorators."""

from __future__ import annotations

import asyncio
import threading
from typing import Iterator, List

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import svc_sdk
from conftest import Memory
from svc_sdk import CaptureGate, ContentFilterSpanProcessor


@pytest.fixture
def filtered() -> Iterator[Memory]:
    """A provider behind the SDK's processor (which stamps end user and project)."""
    m = Memory()
    m.exporter = InMemorySpanExporter()
    m.provider = TracerProvider()
    m.provider.add_span_processor(ContentFilterSpanProcessor(SimpleSpanProcessor(m.exporter), CaptureGate("on")))
    m.tracer = m.provider.get_tracer("test")
    yield m
    m.provider.shutdown()


def by_name(memory: Memory) -> dict:  # type: ignore[type-arg]
    return {s.name: s for s in memory.spans()}


def test_kind_spans_nest_and_carry_both_conventions(memory: Memory) -> None:
    with svc_sdk.agent_span("support-bot", tracer=memory.tracer, attributes={"team": "care"}) as agent:
        assert trace.get_current_span() is agent
        with svc_sdk.retrieval_span("kb", tracer=memory.tracer):
            pass
        with svc_sdk.tool_span("lookup_order", tracer=memory.tracer) as tool:
            tool.set_attribute("tool.ok", True)
    spans = by_name(memory)
    root = spans["invoke_agent support-bot"]
    assert dict(root.attributes) == {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support-bot", "openinference.span.kind": "AGENT", "team": "care",
    }
    assert dict(spans["retrieval kb"].attributes) == {"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "kb", "openinference.span.kind": "RETRIEVER"}
    assert dict(spans["execute_tool lookup_order"].attributes) == {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order", "tool.name": "lookup_order", "openinference.span.kind": "TOOL", "tool.ok": True,
    }
    for child in ("retrieval kb", "execute_tool lookup_order"):
        assert spans[child].parent.span_id == root.context.span_id
        assert spans[child].context.trace_id == root.context.trace_id
    assert root.status.status_code is StatusCode.UNSET


def test_an_exception_is_recorded_sets_error_and_propagates(memory: Memory) -> None:
    with pytest.raises(ValueError, match="no such order"):
        with svc_sdk.tool_span("lookup_order", tracer=memory.tracer):
            raise ValueError("no such order")
    [span] = memory.spans()
    assert span.status.status_code is StatusCode.ERROR
    assert "no such order" in (span.status.description or "")
    assert [e.name for e in span.events] == ["exception"]
    assert span.end_time is not None


def test_decorators_make_a_span_per_call_of_plain_and_async_functions(memory: Memory) -> None:
    @svc_sdk.agent_span("planner", tracer=memory.tracer)
    def plan(goal: str) -> str:
        return trace.get_current_span().get_span_context().span_id and goal.upper()

    @svc_sdk.tool_span("search", tracer=memory.tracer)
    async def search(q: str) -> List[str]:
        await asyncio.sleep(0)
        return [q, str(trace.get_current_span().get_span_context().span_id)]

    assert plan.__name__ == "plan"
    assert plan("ship it") == "SHIP IT"
    assert plan("again") == "AGAIN"
    found = asyncio.run(search("refunds"))
    assert found[0] == "refunds"
    names = [s.name for s in memory.spans()]
    assert names == ["invoke_agent planner", "invoke_agent planner", "execute_tool search"]
    assert len({s.context.span_id for s in memory.spans()}) == 3
    assert found[1] == str(memory.spans()[2].context.span_id), "the async body ran inside its span"


def test_a_decorated_async_failure_is_recorded(memory: Memory) -> None:
    @svc_sdk.retrieval_span("kb", tracer=memory.tracer)
    async def fetch() -> None:
        raise LookupError("index offline")

    with pytest.raises(LookupError):
        asyncio.run(fetch())
    [span] = memory.spans()
    assert span.status.status_code is StatusCode.ERROR


def test_one_decorated_function_on_many_threads_gets_a_span_each(memory: Memory) -> None:
    barrier = threading.Barrier(4)

    @svc_sdk.tool_span("work", tracer=memory.tracer)
    def work() -> int:
        barrier.wait(10)  # all four spans open at once
        return trace.get_current_span().get_span_context().span_id

    seen: List[int] = []
    threads = [threading.Thread(target=lambda: seen.append(work())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(set(seen)) == 4
    assert sorted(seen) == sorted(s.context.span_id for s in memory.spans())
    assert all(s.parent is None for s in memory.spans())


def test_async_with(memory: Memory) -> None:
    async def run() -> None:
        async with svc_sdk.agent_span("async-bot", tracer=memory.tracer) as span:
            span.set_attribute("step", 1)

    asyncio.run(run())
    [span] = memory.spans()
    assert span.name == "invoke_agent async-bot" and span.attributes["step"] == 1


def test_generators_are_refused_as_decorated_functions() -> None:
    with pytest.raises(TypeError, match="generator"):

        @svc_sdk.agent_span("gen")
        def gen() -> Iterator[int]:
            yield 1


def test_the_global_tracer_is_the_default(memory: Memory) -> None:
    # No tracer given: the helper asks the global provider when it starts the span.
    previous = trace._TRACER_PROVIDER  # type: ignore[attr-defined]
    try:
        trace._TRACER_PROVIDER = memory.provider  # type: ignore[attr-defined]
        with svc_sdk.agent_span("global-bot"):
            pass
    finally:
        trace._TRACER_PROVIDER = previous  # type: ignore[attr-defined]
    [span] = memory.spans()
    assert span.name == "invoke_agent global-bot"
    assert span.instrumentation_scope.name == "svc_sdk"


def test_set_end_user_and_project_on_the_current_span(memory: Memory) -> None:
    assert svc_sdk.set_end_user("user-1") is False, "no current span"
    with memory.tracer.start_as_current_span("run") as span:
        assert svc_sdk.set_end_user("user-42") is True
        assert svc_sdk.set_project("checkout") is True
    other = memory.tracer.start_span("other")
    assert svc_sdk.set_end_user("user-9", other) is True
    other.end()
    spans = by_name(memory)
    assert dict(spans["run"].attributes) == {"svc.end_user": "user-42", "svc.project_id": "checkout"}
    assert dict(spans["other"].attributes) == {"svc.end_user": "user-9"}
    assert span.is_recording() is False


def test_mark_spans_you_started(memory: Memory) -> None:
    for kind, mark in (("agent", svc_sdk.mark_agent), ("tool", svc_sdk.mark_tool), ("retrieval", svc_sdk.mark_retrieval)):
        with memory.tracer.start_as_current_span(f"my {kind}") as span:
            assert mark(span, "x") is span
    spans = by_name(memory)
    assert spans["my agent"].attributes["openinference.span.kind"] == "AGENT"
    assert spans["my tool"].attributes["gen_ai.tool.name"] == "x"
    assert spans["my retrieval"].attributes["gen_ai.data_source.id"] == "x"
    with pytest.raises(ValueError):
        svc_sdk.kind_attributes("chain", "x")  # type: ignore[arg-type]


def test_end_user_and_project_scopes_tag_every_span_inside(filtered: Memory) -> None:
    with svc_sdk.end_user("user-42"), svc_sdk.project("checkout"):
        with filtered.tracer.start_as_current_span("a"):
            with svc_sdk.end_user("user-7"):  # the inner scope wins
                with filtered.tracer.start_as_current_span("b"):
                    pass

    @svc_sdk.end_user("user-dec")
    def decorated() -> None:
        with filtered.tracer.start_as_current_span("c"):
            pass

    @svc_sdk.project("async-proj")
    async def decorated_async() -> None:
        await asyncio.sleep(0)
        with filtered.tracer.start_as_current_span("d"):
            pass

    decorated()
    asyncio.run(decorated_async())
    with filtered.tracer.start_as_current_span("e"):
        pass
    got = {s.name: dict(s.attributes or {}) for s in filtered.spans()}
    assert got == {
        "a": {"svc.end_user": "user-42", "svc.project_id": "checkout"},
        "b": {"svc.end_user": "user-7", "svc.project_id": "checkout"},
        "c": {"svc.end_user": "user-dec"},
        "d": {"svc.project_id": "async-proj"},
        "e": {},
    }
