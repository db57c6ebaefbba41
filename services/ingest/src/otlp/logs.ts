/**
 * Coding-agent events, pure decoding:
 * - OTLP/JSON logs (ExportLogsServiceRequest) -> one event per log record. The
 *   event name is the `event.name` attribute (Claude Code: "api_request", Codex
 *   CLI: "codex.tool_result"), else the record's eventName, else a string body
 *   ("claude_code.api_request"). Time is timeUnixNano, else
 *   observedTimeUnixNano, else the time of receipt.
 * - Activity records (our format, docs/coding-agent.md) -> one event per record,
 *   named `activity.<type>`, its fields as attributes under the names Claude Code
 *   uses (user.email, session.id, model, cost_usd, input_tokens, ...). The
 *   activity endpoint also takes an OTLP/JSON logs envelope: decoded as logs,
 *   then each record read as an activity record (activityItemOfLog).
 * Malformed containers are a 400 for the whole request; a bad record is
 * rejected alone (dead-lettered) and the rest accepted.
 */
import type { CodingAgentEventRecord } from '@svc/shared/bus/records'
import { anyValueJson, decodeAttributeList, InvalidValueError, newAttributeMap, preview } from './any-value.js'
import { fitsNanos, isObject, listField, MalformedRequest, parseNanos } from './fields.js'
import { resourceAttributes, type RejectedItem, type Tenant } from './metrics.js'

export type DecodedEvents = { ok: true; events: CodingAgentEventRecord[]; rejected: RejectedItem[] } | { ok: false; message: string }

class RecordRejected extends Error {}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return ''
  if (isObject(body) && typeof body.stringValue === 'string') return body.stringValue
  try {
    return anyValueJson(body)
  } catch (err) {
    if (err instanceof InvalidValueError) throw new RecordRejected(`body: ${err.message}`)
    throw err
  }
}

/**
 * `asActivity`: the records were sent to the activity endpoint, so each one is an
 * activity record (activityItemOfLog) and decoded by the activity rules.
 */
export function decodeLogsRequest(body: unknown, opts: { tenant: Tenant; receivedAtMs: number; asActivity?: boolean }): DecodedEvents {
  if (!isObject(body)) return { ok: false, message: 'body is not an OTLP logs object ({"resourceLogs": [...]})' }
  if (body.resourceLogs === undefined) return { ok: false, message: 'resourceLogs is missing' }
  const events: CodingAgentEventRecord[] = []
  const rejected: RejectedItem[] = []
  try {
    listField(body.resourceLogs, 'resourceLogs').forEach((rl, i) => {
      const rPath = `resourceLogs[${i}]`
      if (!isObject(rl)) throw new MalformedRequest(`${rPath} is not an object`)
      const resource = resourceAttributes(rl.resource, `${rPath}.resource`)
      listField(rl.scopeLogs, `${rPath}.scopeLogs`).forEach((sl, j) => {
        const sPath = `${rPath}.scopeLogs[${j}]`
        if (!isObject(sl)) throw new MalformedRequest(`${sPath} is not an object`)
        listField(sl.logRecords, `${sPath}.logRecords`).forEach((lr, k) => {
          const lPath = `${sPath}.logRecords[${k}]`
          try {
            if (!isObject(lr)) throw new RecordRejected('log record is not an object')
            const attrs = newAttributeMap()
            Object.assign(attrs, resource)
            try {
              decodeAttributeList(listField(lr.attributes, `${lPath}.attributes`), attrs, new Set())
            } catch (err) {
              if (err instanceof InvalidValueError) throw new RecordRejected(err.message)
              throw err
            }
            const text = bodyText(lr.body)
            // eventName: the LogRecord field (OTLP 1.5) the OpenTelemetry SDKs' emit({ eventName }) fills.
            const name = attrs['event.name'] || (typeof lr.eventName === 'string' ? lr.eventName : '') || (isObject(lr.body) && typeof lr.body.stringValue === 'string' ? text : '')
            if (!name) throw new RecordRejected('log record has neither an event.name attribute, an eventName nor a string body naming the event')
            const time = parseNanos(lr.timeUnixNano) ?? parseNanos(lr.observedTimeUnixNano) ?? BigInt(opts.receivedAtMs) * 1_000_000n
            if (opts.asActivity) {
              events.push(activityEvent(activityRecord(activityItemOfLog(name, attrs), {}, time), opts))
              return
            }
            events.push({
              org_id: opts.tenant.org_id,
              workspace_id: opts.tenant.workspace_id,
              source: 'otlp.logs',
              event_name: name,
              time_unix_nano: time,
              severity_text: typeof lr.severityText === 'string' ? lr.severityText : '',
              body: text,
              service_name: resource['service.name'] ?? '',
              attributes: attrs,
              received_at_ms: opts.receivedAtMs,
            })
          } catch (err) {
            if (err instanceof RecordRejected) rejected.push({ reason: err.message, item: lr })
            else throw err
          }
        })
      })
    })
  } catch (err) {
    if (err instanceof MalformedRequest) return { ok: false, message: err.message }
    throw err
  }
  return { ok: true, events, rejected }
}

/** Activity record types and the fields each may carry (besides type, timestamp, user_email, account_id, session_id, agent). */
export const ACTIVITY_TYPES = {
  api_request: { numbers: ['cost_usd', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'duration_ms'], strings: ['model'] },
  commit: { numbers: [], strings: ['commit_sha', 'repository', 'branch', 'message'] },
  file_edit: { numbers: ['lines_added', 'lines_removed'], strings: ['file_path', 'tool_name', 'commit_sha'] },
  pull_request: { numbers: ['number'], strings: ['url', 'repository'] },
  user_prompt: { numbers: ['prompt_length'], strings: [] },
  tool_result: { numbers: ['duration_ms'], strings: ['tool_name'] },
} as const
export type ActivityType = keyof typeof ACTIVITY_TYPES

const COMMON_STRINGS: Record<string, string> = { user_email: 'user.email', account_id: 'user.account_uuid', session_id: 'session.id', agent: 'agent', model: 'model' }

function activityTime(v: unknown): bigint {
  let ns: bigint | null = null
  if (typeof v === 'string') {
    const ms = Date.parse(v)
    if (/^\d{4}-\d{2}-\d{2}T/.test(v) && Number.isFinite(ms)) ns = BigInt(ms) * 1_000_000n
  }
  if (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 1e14) ns = BigInt(v) * 1_000_000n
  if (ns !== null && fitsNanos(ns)) return ns
  if (ns !== null) throw new RecordRejected(`timestamp ${preview(v)} is outside 1970-01-01 to 2262-04-11`)
  throw new RecordRejected(`timestamp ${preview(v)} is neither an ISO 8601 time nor Unix milliseconds`)
}

/** An activity record's event name, time (`time`, else its timestamp) and attributes; throws RecordRejected. */
function activityRecord(item: unknown, defaults: Record<string, unknown>, time?: bigint): { name: string; time: bigint; attrs: Record<string, string> } {
  if (!isObject(item)) throw new RecordRejected('activity is not an object')
  const type = item.type
  if (typeof type !== 'string' || !Object.hasOwn(ACTIVITY_TYPES, type))
    throw new RecordRejected(`type ${preview(type)} is not one of ${Object.keys(ACTIVITY_TYPES).join(', ')}`)
  const spec = ACTIVITY_TYPES[type as ActivityType]
  const attrs = newAttributeMap()
  const merged = { ...defaults, ...item }
  for (const [field, attr] of Object.entries(COMMON_STRINGS)) {
    const v = merged[field]
    if (v === undefined || v === null) continue
    if (typeof v !== 'string') throw new RecordRejected(`${field} ${preview(v)} is not a string`)
    attrs[attr] = v
  }
  for (const field of spec.strings) {
    const v = item[field]
    if (v === undefined || v === null) continue
    if (typeof v !== 'string') throw new RecordRejected(`${field} ${preview(v)} is not a string`)
    attrs[field] = v
  }
  for (const field of spec.numbers) {
    const v = item[field]
    if (v === undefined || v === null) continue
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RecordRejected(`${field} ${preview(v)} is not a non-negative number`)
    attrs[field] = String(v)
  }
  if (type === 'commit') {
    if (typeof item.commit_sha !== 'string' || !/^[0-9a-fA-F]{4,64}$/.test(item.commit_sha)) throw new RecordRejected(`commit_sha ${preview(item.commit_sha)} is not a hex commit id`)
    const files = listOrReject(item.files, 'files').map((f, i) => {
      if (!isObject(f) || typeof f.path !== 'string' || f.path === '') throw new RecordRejected(`files[${i}] has no path`)
      for (const k of ['lines_added', 'lines_removed'])
        if (f[k] !== undefined && (typeof f[k] !== 'number' || !Number.isFinite(f[k] as number) || (f[k] as number) < 0)) throw new RecordRejected(`files[${i}].${k} is not a non-negative number`)
      return { path: f.path, lines_added: (f.lines_added as number | undefined) ?? 0, lines_removed: (f.lines_removed as number | undefined) ?? 0 }
    })
    attrs.files = JSON.stringify(files)
  }
  if (type === 'file_edit' && (typeof item.file_path !== 'string' || item.file_path === '')) throw new RecordRejected('file_edit needs a file_path')
  if (type === 'tool_result' && item.success !== undefined) {
    if (typeof item.success !== 'boolean') throw new RecordRejected('success is not a boolean')
    attrs.success = String(item.success)
  }
  return { name: `activity.${type}`, time: time ?? activityTime(item.timestamp), attrs }
}

/** Names under which an OTLP record may carry the activity format's top-level fields: those activity events are stored with. */
const ACTIVITY_ALIASES: Record<string, string> = { user_email: 'user.email', account_id: 'user.account_uuid', session_id: 'session.id', agent: 'service.name' }
const NUMBER_RE = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * An OTLP log record sent to the activity endpoint, as an activity record: its
 * name is the type (`commit` or `activity.commit`), its attributes (the resource's
 * overlaid by the record's) the fields, under the activity format's names or those
 * in ACTIVITY_ALIASES. Numbers, booleans and `files` arrive as AnyValues, i.e. as
 * JSON text here, and are read back; the body is not used.
 */
function activityItemOfLog(name: string, attrs: Record<string, string>): Record<string, unknown> {
  const item = Object.create(null) as Record<string, unknown>
  Object.assign(item, attrs)
  for (const [field, alias] of Object.entries(ACTIVITY_ALIASES)) if (item[field] === undefined && attrs[alias] !== undefined) item[field] = attrs[alias]
  const type = name.replace(/^activity\./, '')
  item.type = type
  const numbers: readonly string[] = Object.hasOwn(ACTIVITY_TYPES, type) ? ACTIVITY_TYPES[type as ActivityType].numbers : []
  for (const field of numbers) if (typeof item[field] === 'string' && NUMBER_RE.test(item[field])) item[field] = Number(item[field])
  for (const field of ['files', 'success']) {
    const v = item[field]
    if (typeof v !== 'string') continue
    try {
      item[field] = JSON.parse(v)
    } catch {
      // Not JSON: left as text, which the activity rules then reject.
    }
  }
  return item
}

function activityEvent(r: ReturnType<typeof activityRecord>, opts: { tenant: Tenant; receivedAtMs: number }): CodingAgentEventRecord {
  return {
    org_id: opts.tenant.org_id,
    workspace_id: opts.tenant.workspace_id,
    source: 'activity',
    event_name: r.name,
    time_unix_nano: r.time,
    severity_text: '',
    body: '',
    service_name: r.attrs.agent ?? '',
    attributes: r.attrs,
    received_at_ms: opts.receivedAtMs,
  }
}

function listOrReject(v: unknown, field: string): unknown[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw new RecordRejected(`${field} is not a list`)
  return v
}

/**
 * `{ agent?, user_email?, account_id?, session_id?, activities: [...] }`, the
 * top-level fields being defaults of every record; or an OTLP/JSON logs envelope
 * (`resourceLogs`, what every OpenTelemetry logs exporter sends), one activity per
 * log record.
 */
export function decodeActivityRequest(body: unknown, opts: { tenant: Tenant; receivedAtMs: number }): DecodedEvents {
  if (!isObject(body)) return { ok: false, message: 'body is not an activity object ({"activities": [...]}) or an OTLP logs object ({"resourceLogs": [...]})' }
  if (body.resourceLogs !== undefined) return decodeLogsRequest(body, { ...opts, asActivity: true })
  if (!Array.isArray(body.activities)) return { ok: false, message: 'activities is missing or not a list' }
  const defaults: Record<string, unknown> = {}
  for (const k of ['agent', 'user_email', 'account_id', 'session_id']) {
    if (body[k] === undefined || body[k] === null) continue
    if (typeof body[k] !== 'string') return { ok: false, message: `${k} is not a string` }
    defaults[k] = body[k]
  }
  const events: CodingAgentEventRecord[] = []
  const rejected: RejectedItem[] = []
  for (const item of body.activities) {
    try {
      events.push(activityEvent(activityRecord(item, defaults), opts))
    } catch (err) {
      if (err instanceof RecordRejected) rejected.push({ reason: err.message, item })
      else throw err
    }
  }
  return { ok: true, events, rejected }
}

/** Attributes that carry prompt or completion text (Claude Code user_prompt `prompt`, Codex `prompt`, tool `output`). */
export const TEXT_ATTRIBUTES = ['prompt', 'output', 'response', 'completion', 'error.message'] as const

/**
 * Removes prompt and completion text from an event while the workspace's
 * capture_text is off, so it is stored nowhere (as spans lose theirs). A Codex
 * apply_patch `arguments` keeps its file headers and one "+" or "-" per changed
 * line, so file edits and their line counts survive without the code. Returns the
 * number of attributes removed or reduced.
 */
export function stripEventText(e: { attributes: Record<string, string> }): number {
  let n = 0
  for (const k of TEXT_ATTRIBUTES)
    if (k in e.attributes) {
      delete e.attributes[k]
      n++
    }
  const args = e.attributes.arguments
  if (args !== undefined) {
    let patch: string | null = null
    try {
      const v = JSON.parse(args) as unknown
      if (v && typeof v === 'object' && typeof (v as { input?: unknown }).input === 'string') patch = (v as { input: string }).input
    } catch {
      patch = args.includes('*** Begin Patch') ? args : null
    }
    e.attributes.arguments = patch === null ? '' : JSON.stringify({ input: patch.split('\n').filter((l) => l.startsWith('*** ') || l.startsWith('+') || l.startsWith('-')).map((l) => (l.startsWith('*** ') ? l : l[0])).join('\n') })
    n++
  }
  return n
}
