/**
 * The flat span array (spec "Span, flat form"): one object per span with snake_case
 * fields and attributes as a plain JSON object. It has no resource, so
 * resource_attributes stay empty and service.name comes from the span itself.
 */
import type { SpanRecord } from '@svc/shared/bus/records'
import { decodeAttributeObject, InvalidValueError, newAttributeMap } from './any-value.js'
import type { DecodeContext, RejectedSpan } from './decode.js'
import {
  isObject,
  MalformedRequest,
  parentSpanId,
  PROJECT_ATTRIBUTE,
  requiredNanos,
  spanId,
  SpanRejected,
  spanKind,
  statusCode,
  str,
  traceId,
} from './fields.js'

export function decodeFlatSpans(items: unknown[], ctx: DecodeContext, out: { spans: SpanRecord[]; rejected: RejectedSpan[] }): void {
  items.forEach((item, i) => {
    if (!isObject(item)) throw new MalformedRequest(`span[${i}] is not an object`)
    // The spec: "an attributes value that is not an object is malformed" (null included).
    if (item.attributes !== undefined && !isObject(item.attributes)) throw new MalformedRequest(`span[${i}].attributes is not an object`)
    try {
      out.spans.push(decodeFlatSpan(item, ctx))
    } catch (err) {
      if (err instanceof SpanRejected || err instanceof InvalidValueError) out.rejected.push({ reason: err.message, item })
      else throw err
    }
  })
}

function decodeFlatSpan(item: Record<string, unknown>, ctx: DecodeContext): SpanRecord {
  const trace = traceId(item.trace_id, 'trace_id')
  const id = spanId(item.span_id, 'span_id')
  const parent = parentSpanId(item.parent_span_id, 'parent_span_id')
  // *_unix_nano is accepted too: it is the span record's (and OTLP's) spelling.
  const start = requiredNanos(item.start_time_unix_ns ?? item.start_time_unix_nano, 'start_time_unix_ns')
  const end = requiredNanos(item.end_time_unix_ns ?? item.end_time_unix_nano, 'end_time_unix_ns')

  const attributes = newAttributeMap()
  const jsonKeys = new Set<string>()
  if (item.attributes !== undefined) decodeAttributeObject(item.attributes as Record<string, unknown>, attributes, jsonKeys)
  const plain = (k: string) => (jsonKeys.has(k) ? undefined : attributes[k])

  return {
    org_id: ctx.principal.org_id,
    workspace_id: ctx.principal.workspace_id,
    project_id: plain(PROJECT_ATTRIBUTE) || ctx.principal.project_id,
    trace_id: trace,
    span_id: id,
    parent_span_id: parent,
    name: str(item.name),
    kind: spanKind(item.kind),
    start_time_unix_nano: start,
    end_time_unix_nano: end,
    status_code: statusCode(item.status_code),
    status_message: str(item.status_message),
    service_name: plain('service.name') || str(item.service_name),
    scope_name: str(item.scope_name),
    resource_attributes: newAttributeMap(),
    attributes,
    json_attribute_keys: [...jsonKeys],
    events_json: '[]',
    links_json: '[]',
    received_at_ms: ctx.receivedAtMs,
  }
}
