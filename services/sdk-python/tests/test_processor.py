"""The fail-closed content filter in front of an exporting processor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Tuple, Union

import pytest
from opentelemetry import context as otel_context
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Tracer

from svc_sdk import CaptureGate, ContentFilterSpanProcessor, without_text
from svc_sdk.context import END_USER_KEY, PROJECT_KEY

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "sdk" / "src" / "content-keys.vectors.json").read_text(encoding="utf-8"))
TEXT_KEYS = VECTORS["text"]
KEPT_KEYS = VECTORS["kept"]
SECRET = "SECRET-PROMPT-TEXT"


def setup(allow: Union[CaptureGate, Callable[[], bool]], limits: SpanLimits = SpanLimits()) -> Tuple[InMemorySpanExporter, Tracer]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(span_limits=limits)
    provider.add_span_processor(ContentFilterSpanProcessor(SimpleSpanProcessor(exporter), allow))
    return exporter, provider.get_tracer("t")


def text_span(tracer: Tracer) -> ReadableSpan:
    attrs = {k: f"{SECRET} {k}" if k in TEXT_KEYS else f"v:{k}" for k in TEXT_KEYS + KEPT_KEYS}
    span = tracer.start_span("chat", attributes=attrs)
    span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": SECRET})
    span.add_event("gen_ai.choice", {"index": 0, "message": SECRET})
    span.add_event("gen_ai.user.message", {"content": SECRET})
    span.add_event("exception", {"exception.message": "boom", "input.value": SECRET})
    span.end()
    return span  # type: ignore[return-value]


def dump(span: ReadableSpan) -> str:
    return span.to_json()


@pytest.mark.parametrize("mode", ["pending", "off"])
def test_exports_no_text_of_any_convention_unless_capture_is_on(mode: str) -> None:
    exporter, tracer = setup(CaptureGate(mode))
    local = text_span(tracer)
    [out] = exporter.get_finished_spans()
    assert SECRET not in dump(out)
    assert sorted(out.attributes or {}) == sorted(KEPT_KEYS)
    events = {e.name: dict(e.attributes or {}) for e in out.events}
    assert events["gen_ai.content.prompt"] == {} and events["gen_ai.choice"] == {} and events["gen_ai.user.message"] == {}
    assert events["exception"] == {"exception.message": "boom"}
    # Everything else is the span's own.
    assert out.get_span_context() == local.get_span_context()
    assert (out.name, out.kind, out.start_time, out.end_time, out.resource, out.instrumentation_scope) == (
        local.name, local.kind, local.start_time, local.end_time, local.resource, local.instrumentation_scope,
    )
    # The application's span keeps its text: only the export is filtered.
    assert (local.attributes or {})["input.value"] == f"{SECRET} input.value"


def test_exports_everything_when_capture_is_on() -> None:
    exporter, tracer = setup(CaptureGate("on"))
    local = text_span(tracer)
    [out] = exporter.get_finished_spans()
    assert dict(out.attributes or {}) == dict(local.attributes or {})
    assert [(e.name, dict(e.attributes or {})) for e in out.events] == [(e.name, dict(e.attributes or {})) for e in local.events]
    assert SECRET in dump(out)


def test_the_decision_is_taken_when_each_span_ends() -> None:
    gate = CaptureGate("pending")
    exporter, tracer = setup(gate)
    before = tracer.start_span("before", attributes={"input.value": SECRET})
    gate.set(True)
    before.end()
    gate.set(False)
    with tracer.start_as_current_span("after", attributes={"input.value": SECRET}):
        pass
    ended = {s.name: dict(s.attributes or {}) for s in exporter.get_finished_spans()}
    assert ended == {"before": {"input.value": SECRET}, "after": {}}


def test_a_failing_decision_strips() -> None:
    def broken() -> bool:
        raise RuntimeError("no")

    exporter, tracer = setup(broken)
    text_span(tracer)
    assert SECRET not in dump(exporter.get_finished_spans()[0])


def test_a_clean_span_is_handed_on_as_is() -> None:
    exporter, tracer = setup(CaptureGate("on"))
    span = tracer.start_span("clean", attributes={"gen_ai.request.model": "gpt-4o"})
    span.add_event("exception", {"exception.message": "boom"})
    span.end()
    [readable] = exporter.get_finished_spans()
    assert without_text(readable) is readable


def test_dropped_counts_survive_the_copy() -> None:
    exporter, tracer = setup(CaptureGate("off"), SpanLimits(max_span_attributes=2, max_events=1))
    span = tracer.start_span("s", attributes={"input.value": SECRET, "a": 1, "b": 2})
    span.add_event("one")
    span.add_event("two")
    span.end()
    [out] = exporter.get_finished_spans()
    assert (out.dropped_attributes, out.dropped_events) == (1, 1)
    assert SECRET not in dump(out)


def test_stamps_end_user_and_project_from_the_context_without_overriding() -> None:
    exporter, tracer = setup(CaptureGate("off"))
    token = otel_context.attach(otel_context.set_value(PROJECT_KEY, "proj-ctx", otel_context.set_value(END_USER_KEY, "user-ctx")))
    try:
        with tracer.start_as_current_span("stamped"):
            pass
        with tracer.start_as_current_span("own", attributes={"svc.end_user": "user-own"}):
            pass
    finally:
        otel_context.detach(token)
    with tracer.start_as_current_span("outside"):
        pass
    got = {s.name: dict(s.attributes or {}) for s in exporter.get_finished_spans()}
    assert got["stamped"] == {"svc.end_user": "user-ctx", "svc.project_id": "proj-ctx"}
    assert got["own"] == {"svc.end_user": "user-own", "svc.project_id": "proj-ctx"}
    assert got["outside"] == {}
