"""OTLP/JSON as the specification's JSON mapping writes it, from real SDK spans."""

from __future__ import annotations

import json
import math

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags, TraceState, set_span_in_context

from svc_sdk.otlp_json import encode_spans, encode_value


def test_every_any_value_kind() -> None:
    assert encode_value("s") == {"stringValue": "s"}
    assert encode_value(True) == {"boolValue": True}
    assert encode_value(False) == {"boolValue": False}
    assert encode_value(42) == {"intValue": "42"}
    assert encode_value(-(2**63)) == {"intValue": str(-(2**63))}
    assert encode_value(2**64) == {"stringValue": str(2**64)}, "beyond int64: kept as text, not refused"
    assert encode_value(0.5) == {"doubleValue": 0.5}
    assert encode_value(math.nan) == {"doubleValue": "NaN"}
    assert encode_value(math.inf) == {"doubleValue": "Infinity"}
    assert encode_value(-math.inf) == {"doubleValue": "-Infinity"}
    assert encode_value(b"\x00\x01\xfe") == {"bytesValue": "AAH+"}
    assert encode_value(None) == {}
    assert encode_value(["a", 1, 2.5, False]) == {
        "arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "1"}, {"doubleValue": 2.5}, {"boolValue": False}]}
    }
    assert encode_value({"id": "kb/1", "score": 0.8, "tags": ("x",)}) == {
        "kvlistValue": {
            "values": [
                {"key": "id", "value": {"stringValue": "kb/1"}},
                {"key": "score", "value": {"doubleValue": 0.8}},
                {"key": "tags", "value": {"arrayValue": {"values": [{"stringValue": "x"}]}}},
            ]
        }
    }


def test_spans_grouped_by_resource_and_scope_with_hex_ids_string_times_and_int_enums() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "bot", "deployment.environment": "test"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer_a = provider.get_tracer("lib.a", "1.2.3", schema_url="https://opentelemetry.io/schemas/1.26.0")
    tracer_b = provider.get_tracer("lib.b")
    remote = SpanContext(
        trace_id=0x0AF7651916CD43DD8448EB211C80319C,
        span_id=0x00F067AA0BA902B7,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TraceState([("vendor", "v1")]),
    )
    linked = SpanContext(trace_id=0x1, span_id=0x2, is_remote=False)
    with tracer_a.start_as_current_span(
        "chat gpt-4o",
        context=set_span_in_context(NonRecordingSpan(remote)),
        kind=SpanKind.CLIENT,
        links=[Link(linked, {"why": "retry"})],
        attributes={
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 9007199254740993,
            "temperature": 0.2,
            "stream": False,
            "tags": ["a", "b"],
            "ids": [1, 2],
            "scores": [0.5, 1.5],
            "flags": [True, False],
        },
        start_time=1_700_000_000_123_456_789,
        end_on_exit=False,
    ) as span:
        span.add_event("gen_ai.choice", {"index": 0}, timestamp=1_700_000_000_200_000_000)
        span.set_status(Status(StatusCode.ERROR, "rate limited"))
        with tracer_b.start_as_current_span("child", start_time=1_700_000_000_300_000_000) as child:
            child.end(end_time=1_700_000_000_400_000_000)
        span.end(end_time=1_700_000_001_000_000_000)

    body = encode_spans(exporter.get_finished_spans())
    json.dumps(body, allow_nan=False)  # valid JSON as is
    [rs] = body["resourceSpans"]
    resource = {kv["key"]: kv["value"] for kv in rs["resource"]["attributes"]}
    assert resource["service.name"] == {"stringValue": "bot"}
    assert resource["deployment.environment"] == {"stringValue": "test"}
    scopes = {ss["scope"]["name"]: ss for ss in rs["scopeSpans"]}
    assert scopes["lib.a"]["scope"] == {"name": "lib.a", "version": "1.2.3"}
    assert scopes["lib.a"]["schemaUrl"] == "https://opentelemetry.io/schemas/1.26.0"
    assert scopes["lib.b"]["scope"] == {"name": "lib.b"}

    [parent] = scopes["lib.a"]["spans"]
    [child_json] = scopes["lib.b"]["spans"]
    assert parent["traceId"] == "0af7651916cd43dd8448eb211c80319c"
    assert len(parent["spanId"]) == 16 and int(parent["spanId"], 16) != 0
    assert parent["parentSpanId"] == "00f067aa0ba902b7"
    assert parent["traceState"] == "vendor=v1"
    assert parent["flags"] == 0x01 | 0x100 | 0x200, "sampled, parent known to be remote"
    assert parent["kind"] == 3
    assert parent["name"] == "chat gpt-4o"
    assert parent["startTimeUnixNano"] == "1700000000123456789"
    assert parent["endTimeUnixNano"] == "1700000001000000000"
    assert parent["status"] == {"code": 2, "message": "rate limited"}
    attrs = {kv["key"]: kv["value"] for kv in parent["attributes"]}
    assert attrs["gen_ai.usage.input_tokens"] == {"intValue": "9007199254740993"}
    assert attrs["temperature"] == {"doubleValue": 0.2}
    assert attrs["stream"] == {"boolValue": False}
    assert attrs["tags"] == {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}}
    assert attrs["ids"] == {"arrayValue": {"values": [{"intValue": "1"}, {"intValue": "2"}]}}
    assert attrs["scores"] == {"arrayValue": {"values": [{"doubleValue": 0.5}, {"doubleValue": 1.5}]}}
    assert attrs["flags"] == {"arrayValue": {"values": [{"boolValue": True}, {"boolValue": False}]}}
    assert parent["events"] == [
        {"timeUnixNano": "1700000000200000000", "name": "gen_ai.choice", "attributes": [{"key": "index", "value": {"intValue": "0"}}]}
    ]
    assert parent["links"] == [
        {
            "traceId": "00000000000000000000000000000001",
            "spanId": "0000000000000002",
            "attributes": [{"key": "why", "value": {"stringValue": "retry"}}],
            "flags": 0x100,
        }
    ]
    assert "droppedAttributesCount" not in parent

    assert child_json["traceId"] == parent["traceId"]
    assert child_json["parentSpanId"] == parent["spanId"]
    assert child_json["flags"] == 0x01 | 0x100, "local parent"
    assert child_json["kind"] == 1
    assert child_json["status"] == {"code": 0}
    assert "events" not in child_json and "links" not in child_json


def test_dropped_counts_are_reported() -> None:
    from opentelemetry.sdk.trace import SpanLimits

    exporter = InMemorySpanExporter()
    provider = TracerProvider(span_limits=SpanLimits(max_span_attributes=2, max_events=1))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("t").start_as_current_span("s", attributes={"a": 1, "b": 2, "c": 3}) as span:
        span.add_event("one")
        span.add_event("two")
    [encoded] = encode_spans(exporter.get_finished_spans())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert encoded["droppedAttributesCount"] == 1
    assert encoded["droppedEventsCount"] == 1
    assert len(encoded["attributes"]) == 2
