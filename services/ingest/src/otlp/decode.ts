/**
 * Pure decoding of an ingest request body (already JSON-parsed) into span records.
 * Two failure levels:
 * - the request's shape is wrong (a list that is not a list, a span that is not an
 *   object) -> { ok: false }, the route answers 400 and writes nothing;
 * - one span is invalid (bad ids, missing times, an undecodable attribute value) ->
 *   it goes to `rejected` (dead-lettered) and the rest of the batch is accepted.
 * Organization and workspace always come from the caller's API key: attributes in
 * the payload can choose a project, never a tenant.
 */
import type { SpanRecord } from '@svc/shared/bus/records'
import { decodeAttributeList, InvalidValueError, keyValuesJson, newAttributeMap } from './any-value.js'
import {
  idHex,
  isObject,
  listField,
  MalformedRequest,
  parentSpanId,
  parseNanos,
  PROJECT_ATTRIBUTE,
  requiredNanos,
  spanId,
  SpanRejected,
  spanKind,
  statusCode,
  str,
  traceId,
} from './fields.js'
import { decodeFlatSpans } from './flat.js'

export interface DecodeContext {
  principal: { org_id: string; workspace_id: string; project_id: string }
  receivedAtMs: number
}

export interface RejectedSpan {
  reason: string
  item: unknown
}

export type DecodeResult = { ok: true; spans: SpanRecord[]; rejected: RejectedSpan[] } | { ok: false; message: string }

export function decodeTraceRequest(body: unknown, ctx: DecodeContext): DecodeResult {
  const out = { spans: [] as SpanRecord[], rejected: [] as RejectedSpan[] }
  try {
    if (Array.isArray(body)) decodeFlatSpans(body, ctx, out)
    else if (isObject(body) && 'resourceSpans' in body) decodeOtlp(body, ctx, out)
    else return { ok: false, message: 'body must be an OTLP/JSON object with resourceSpans, or an array of spans' }
  } catch (err) {
    if (err instanceof MalformedRequest) return { ok: false, message: err.message }
    throw err
  }
  return { ok: true, ...out }
}

interface ResourceContext {
  attributes: Record<string, string>
  jsonKeys: string[]
  serviceName: string
  projectId: string | undefined
  /** Set when a resource attribute cannot be decoded: every span of the resource is rejected. */
  error: string | null
}

function decodeResource(resource: unknown, path: string): ResourceContext {
  if (resource !== undefined && resource !== null && !isObject(resource)) throw new MalformedRequest(`${path} is not an object`)
  const list = listField(resource?.attributes, `${path}.attributes`)
  const attributes = newAttributeMap()
  const jsonKeys = new Set<string>()
  let error: string | null = null
  try {
    decodeAttributeList(list, attributes, jsonKeys, 'resource.')
  } catch (err) {
    if (!(err instanceof InvalidValueError)) throw err
    error = `resource ${err.message}`
  }
  const plain = (k: string) => (!jsonKeys.has('resource.' + k) ? attributes[k] : undefined)
  return { attributes, jsonKeys: [...jsonKeys], serviceName: plain('service.name') ?? '', projectId: plain(PROJECT_ATTRIBUTE) || undefined, error }
}

function decodeOtlp(body: Record<string, unknown>, ctx: DecodeContext, out: { spans: SpanRecord[]; rejected: RejectedSpan[] }): void {
  const resourceSpans = body.resourceSpans
  if (!Array.isArray(resourceSpans)) throw new MalformedRequest('resourceSpans is not a list')
  resourceSpans.forEach((rs, i) => {
    const path = `resourceSpans[${i}]`
    if (!isObject(rs)) throw new MalformedRequest(`${path} is not an object`)
    const resource = decodeResource(rs.resource, `${path}.resource`)
    // instrumentationLibrarySpans: the pre-1.0 name, still sent by old SDKs and collectors.
    const scopesKey = rs.scopeSpans !== undefined && rs.scopeSpans !== null ? 'scopeSpans' : 'instrumentationLibrarySpans'
    listField(rs[scopesKey], `${path}.${scopesKey}`).forEach((ss, j) => {
      const spath = `${path}.${scopesKey}[${j}]`
      if (!isObject(ss)) throw new MalformedRequest(`${spath} is not an object`)
      const scope = ss.scope ?? ss.instrumentationLibrary
      const scopeName = isObject(scope) ? str(scope.name) : ''
      listField(ss.spans, `${spath}.spans`).forEach((span, k) => {
        const sp = `${spath}.spans[${k}]`
        if (!isObject(span)) throw new MalformedRequest(`${sp} is not an object`)
        try {
          out.spans.push(decodeOtlpSpan(span, sp, resource, scopeName, ctx))
        } catch (err) {
          if (err instanceof SpanRejected || err instanceof InvalidValueError) out.rejected.push({ reason: err.message, item: span })
          else throw err
        }
      })
    })
  })
}

function decodeOtlpSpan(span: Record<string, unknown>, path: string, resource: ResourceContext, scopeName: string, ctx: DecodeContext): SpanRecord {
  // Shape problems first: they fail the whole request even when the span is also invalid.
  const attrList = listField(span.attributes, `${path}.attributes`)
  const events = listField(span.events, `${path}.events`)
  const links = listField(span.links, `${path}.links`)
  const events_json = eventsJson(events, path)
  const links_json = linksJson(links, path)

  const trace = traceId(span.traceId, 'traceId')
  const id = spanId(span.spanId, 'spanId')
  const parent = parentSpanId(span.parentSpanId, 'parentSpanId')
  const start = requiredNanos(span.startTimeUnixNano, 'startTimeUnixNano')
  const end = requiredNanos(span.endTimeUnixNano, 'endTimeUnixNano')
  if (resource.error) throw new SpanRejected(resource.error)

  const attributes = newAttributeMap()
  const jsonKeys = new Set<string>()
  decodeAttributeList(attrList, attributes, jsonKeys)
  const spanProject = jsonKeys.has(PROJECT_ATTRIBUTE) ? undefined : attributes[PROJECT_ATTRIBUTE]
  const status = isObject(span.status) ? span.status : {}

  return {
    org_id: ctx.principal.org_id,
    workspace_id: ctx.principal.workspace_id,
    project_id: spanProject || resource.projectId || ctx.principal.project_id,
    trace_id: trace,
    span_id: id,
    parent_span_id: parent,
    name: str(span.name),
    kind: spanKind(span.kind),
    start_time_unix_nano: start,
    end_time_unix_nano: end,
    status_code: statusCode(status.code),
    status_message: str(status.message),
    service_name: resource.serviceName,
    scope_name: scopeName,
    resource_attributes: resource.attributes,
    attributes,
    json_attribute_keys: jsonKeys.size ? [...resource.jsonKeys, ...jsonKeys] : resource.jsonKeys,
    events_json,
    links_json,
    received_at_ms: ctx.receivedAtMs,
  }
}

/** [{time_unix_nano: "<digits>" | null, name, attributes: {...}}]; times as strings so they stay exact. */
function eventsJson(events: unknown[], path: string): string {
  if (events.length === 0) return '[]'
  const parts = events.map((e, i) => {
    if (!isObject(e)) throw new MalformedRequest(`${path}.events[${i}] is not an object`)
    const attrs = keyValuesJson(listField(e.attributes, `${path}.events[${i}].attributes`))
    const t = parseNanos(e.timeUnixNano)
    return `{"time_unix_nano":${t === null ? 'null' : `"${t}"`},"name":${JSON.stringify(str(e.name))},"attributes":${attrs}}`
  })
  return `[${parts.join(',')}]`
}

/**
 * [{trace_id, span_id, attributes: {...}}]; link ids are normalized like span ids
 * (hex, base64 read as hex) but not validated: one that is neither is kept
 * lower-cased, since a link may point outside this system.
 */
const linkId = (v: unknown, bytes: 16 | 8) => idHex(v, bytes) ?? str(v).toLowerCase()

function linksJson(links: unknown[], path: string): string {
  if (links.length === 0) return '[]'
  const parts = links.map((l, i) => {
    if (!isObject(l)) throw new MalformedRequest(`${path}.links[${i}] is not an object`)
    const attrs = keyValuesJson(listField(l.attributes, `${path}.links[${i}].attributes`))
    return `{"trace_id":${JSON.stringify(linkId(l.traceId, 16))},"span_id":${JSON.stringify(linkId(l.spanId, 8))},"attributes":${attrs}}`
  })
  return `[${parts.join(',')}]`
}
