"""Spans to an OTLP/JSON ``ExportTraceServiceRequest``, as the OTLP specification's
JSON mapping writes it: lowerCamelCase field names, trace and span ids as hex (not
the base64 of protobuf's generic mapping), 64-bit integers as decimal strings, enums
as integers, bytes as base64. Pure: spans in, a JSON-ready dict out.
"""

from __future__ import annotations

import base64
import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind

JsonObject = Dict[str, Any]

# OTLP's SpanKind counts from SPAN_KIND_UNSPECIFIED = 0; the API's from INTERNAL = 0.
_SPAN_KIND = {
    SpanKind.INTERNAL: 1,
    SpanKind.SERVER: 2,
    SpanKind.CLIENT: 3,
    SpanKind.PRODUCER: 4,
    SpanKind.CONSUMER: 5,
}
# SpanFlags: bits 0-7 are the W3C trace flags; these two say whether the parent (or
# the linked span) is remote.
_HAS_IS_REMOTE = 0x100
_IS_REMOTE = 0x200
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def encode_value(value: Any) -> JsonObject:
    """An OTLP ``AnyValue``. Lists become ``arrayValue``, mappings ``kvlistValue``,
    bytes ``bytesValue`` (base64); an int outside int64 becomes its decimal text
    (the service would reject it as an ``intValue``), anything else its ``str``."""
    if value is None:
        return {}
    if isinstance(value, bool):  # before int: bool is an int
        return {"boolValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, int):
        if _INT64_MIN <= value <= _INT64_MAX:
            return {"intValue": str(value)}
        return {"stringValue": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"doubleValue": "NaN"}
        if math.isinf(value):
            return {"doubleValue": "Infinity" if value > 0 else "-Infinity"}
        return {"doubleValue": value}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"bytesValue": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": encode_attributes(value)}}
    if isinstance(value, (list, tuple, Sequence)):
        return {"arrayValue": {"values": [encode_value(v) for v in value]}}
    return {"stringValue": str(value)}


def encode_attributes(attributes: Optional[Mapping[str, Any]]) -> List[JsonObject]:
    """A list of OTLP ``KeyValue``."""
    if not attributes:
        return []
    return [{"key": str(k), "value": encode_value(v)} for k, v in attributes.items()]


def _hex_trace_id(trace_id: int) -> str:
    return format(trace_id, "032x")


def _hex_span_id(span_id: int) -> str:
    return format(span_id, "016x")


def _flags(context: Optional[SpanContext], remote_of: Optional[SpanContext]) -> int:
    flags = (int(context.trace_flags) & 0xFF if context is not None else 0) | _HAS_IS_REMOTE
    if remote_of is not None and remote_of.is_remote:
        flags |= _IS_REMOTE
    return flags


def _trace_state(context: SpanContext) -> str:
    state = context.trace_state
    return ",".join(f"{k}={v}" for k, v in state.items()) if state else ""


def _with_dropped(obj: JsonObject, key: str, count: int) -> JsonObject:
    if count:
        obj[key] = count
    return obj


def _encode_link(link: Link) -> JsonObject:
    ctx = link.context
    out: JsonObject = {"traceId": _hex_trace_id(ctx.trace_id), "spanId": _hex_span_id(ctx.span_id)}
    state = _trace_state(ctx)
    if state:
        out["traceState"] = state
    out["attributes"] = encode_attributes(link.attributes)
    out["flags"] = _flags(ctx, ctx)
    return _with_dropped(out, "droppedAttributesCount", getattr(link, "dropped_attributes", 0))


def encode_span(span: ReadableSpan) -> JsonObject:
    """One OTLP ``Span``."""
    ctx = span.get_span_context()
    if ctx is None:
        raise ValueError(f"span {span.name!r} has no span context")
    out: JsonObject = {"traceId": _hex_trace_id(ctx.trace_id), "spanId": _hex_span_id(ctx.span_id)}
    state = _trace_state(ctx)
    if state:
        out["traceState"] = state
    if span.parent is not None:
        out["parentSpanId"] = _hex_span_id(span.parent.span_id)
    out["flags"] = _flags(ctx, span.parent)
    out["name"] = span.name
    out["kind"] = _SPAN_KIND.get(span.kind, 0)
    out["startTimeUnixNano"] = str(span.start_time or 0)
    out["endTimeUnixNano"] = str(span.end_time or span.start_time or 0)
    out["attributes"] = encode_attributes(span.attributes)
    _with_dropped(out, "droppedAttributesCount", span.dropped_attributes)
    if span.events:
        out["events"] = [
            _with_dropped(
                {"timeUnixNano": str(e.timestamp or 0), "name": e.name, "attributes": encode_attributes(e.attributes)},
                "droppedAttributesCount",
                getattr(e, "dropped_attributes", 0),
            )
            for e in span.events
        ]
    _with_dropped(out, "droppedEventsCount", span.dropped_events)
    if span.links:
        out["links"] = [_encode_link(link) for link in span.links]
    _with_dropped(out, "droppedLinksCount", span.dropped_links)
    status: JsonObject = {"code": span.status.status_code.value}
    if span.status.description:
        status["message"] = span.status.description
    out["status"] = status
    return out


def _encode_scope(scope: Optional[InstrumentationScope]) -> JsonObject:
    if scope is None:
        return {}
    out: JsonObject = {"name": scope.name}
    if scope.version:
        out["version"] = scope.version
    attributes = getattr(scope, "attributes", None)
    if attributes:
        out["attributes"] = encode_attributes(attributes)
    return out


def encode_spans(spans: Sequence[ReadableSpan]) -> JsonObject:
    """The ``ExportTraceServiceRequest``: spans grouped by resource, then by
    instrumentation scope, in the order they came."""
    # Grouped by identity: one tracer provider hands every span the same objects.
    groups: Dict[int, Tuple[Resource, Dict[int, Tuple[Optional[InstrumentationScope], List[JsonObject]]]]] = {}
    for span in spans:
        resource = span.resource
        scope = span.instrumentation_scope
        _, scopes = groups.setdefault(id(resource), (resource, {}))
        scopes.setdefault(id(scope), (scope, []))[1].append(encode_span(span))
    resource_spans: List[JsonObject] = []
    for resource, scopes in groups.values():
        scope_spans: List[JsonObject] = []
        for scope, encoded in scopes.values():
            ss: JsonObject = {"scope": _encode_scope(scope), "spans": encoded}
            if scope is not None and scope.schema_url:
                ss["schemaUrl"] = scope.schema_url
            scope_spans.append(ss)
        rs: JsonObject = {"resource": {"attributes": encode_attributes(resource.attributes)}, "scopeSpans": scope_spans}
        if resource.schema_url:
            rs["schemaUrl"] = resource.schema_url
        resource_spans.append(rs)
    return {"resourceSpans": resource_spans}
