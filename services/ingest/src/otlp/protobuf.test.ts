import { readFileSync } from 'node:fs'
import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { collectorPayload, jsExporterPayload, TRACE_ID } from '../test-support/payloads.js'
import { otlpProtobuf, tracesProtobuf } from '../test-support/protobuf.js'
import { decodeTraceRequest } from './decode.js'
import { MalformedRequest } from './fields.js'
import { decodeLogsRequest } from './logs.js'
import { decodeMetricsRequest } from './metrics.js'
import { decodeProtobufRequest, encodeExportResponse, encodeProtobufRequest } from './protobuf.js'

const ctx = { principal: { org_id: 'org-1', workspace_id: 'ws-1', project_id: 'key-project' }, receivedAtMs: 1_718_000_005_000 }
const tenantOpts = { tenant: { org_id: 'o', workspace_id: 'w' }, receivedAtMs: 1_700_000_000_000 }
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../../../tests/fixtures/coding-agent/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>

const malformed = (signal: 'traces' | 'metrics' | 'logs', bytes: Uint8Array) => {
  try {
    decodeProtobufRequest(signal, bytes)
  } catch (err) {
    expect(err).toBeInstanceOf(MalformedRequest)
    return (err as Error).message
  }
  throw new Error('decoded')
}

describe('protobuf decodes into what the JSON decoders read', () => {
  it.each([
    ['the OTel JS exporter shape', jsExporterPayload],
    ['the Collector shape (enum names, upper-case hex, empty parent)', collectorPayload],
  ])('%s: the same span records as its OTLP/JSON', (_name, payload) => {
    const fromJson = decodeTraceRequest(payload(), ctx)
    const fromProtobuf = decodeTraceRequest(decodeProtobufRequest('traces', tracesProtobuf(payload())), ctx)
    expect(fromJson.ok && fromJson.spans.length).toBeGreaterThan(0)
    expect(fromProtobuf).toEqual(fromJson)
  })

  it('keeps every AnyValue kind exact: int64 past 2^53, NaN, bytes as base64, nested arrays and kvlists', () => {
    const value = (v: Record<string, unknown>) => ({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: TRACE_ID, spanId: 'eee19b7ec3c1b174', startTimeUnixNano: '1', endTimeUnixNano: '2', attributes: [{ key: 'k', value: v }] }] }] }] })
    const attr = (v: Record<string, unknown>) => {
      const d = decodeTraceRequest(decodeProtobufRequest('traces', tracesProtobuf(value(v))), ctx)
      if (!d.ok) throw new Error(d.message)
      return d.spans[0]!.attributes.k
    }
    expect(attr({ intValue: '9007199254740993' })).toBe('9007199254740993')
    expect(attr({ intValue: '-9223372036854775808' })).toBe('-9223372036854775808')
    expect(attr({ doubleValue: NaN })).toBe('"NaN"')
    expect(attr({ doubleValue: -Infinity })).toBe('"-Infinity"')
    expect(attr({ bytesValue: 'AAEC/w==' })).toBe('"AAEC/w=="')
    expect(attr({ boolValue: false })).toBe('false')
    expect(attr({ stringValue: '' })).toBe('')
    expect(attr({ arrayValue: { values: [{ intValue: '1' }, { kvlistValue: { values: [{ key: 'a', value: { stringValue: 'b' } }] } }] } })).toBe('[1,{"a":"b"}]')
  })

  it('reads the raw 16- and 8-byte ids as hex, an absent parent as a root, link ids as hex', () => {
    const body = jsExporterPayload()
    body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.links = [{ traceId: 'ff'.repeat(16), spanId: 'fe'.repeat(8) }] as never
    const d = decodeTraceRequest(decodeProtobufRequest('traces', tracesProtobuf(body)), ctx)
    expect(d.ok && d.spans.map((s) => [s.trace_id, s.span_id, s.parent_span_id])).toEqual([
      [TRACE_ID, 'eee19b7ec3c1b174', ''],
      [TRACE_ID, 'eee19b7ec3c1b173', 'eee19b7ec3c1b174'],
    ])
    expect(d.ok && JSON.parse(d.spans[0]!.links_json)).toEqual([{ trace_id: 'ff'.repeat(16), span_id: 'fe'.repeat(8), attributes: {} }])
  })

  it('an id of the wrong length rejects its span alone, as in OTLP/JSON', () => {
    const body = jsExporterPayload()
    body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId = 'abcd'
    const d = decodeTraceRequest(decodeProtobufRequest('traces', tracesProtobuf(body)), ctx)
    expect(d.ok && d.spans).toHaveLength(1)
    expect(d.ok && d.rejected.map((r) => r.reason)).toEqual(['traceId "q80=" is not 32 hex characters (or base64 of 16 bytes)'])
  })

  it('metrics and logs: the coding-agent fixtures decode to the same points and events', () => {
    const metrics = fixture('claude-code-metrics.json')
    expect(decodeMetricsRequest(decodeProtobufRequest('metrics', otlpProtobuf('metrics', metrics)), tenantOpts)).toEqual(decodeMetricsRequest(metrics, tenantOpts))
    const logs = fixture('claude-code-logs.json')
    const fromProtobuf = decodeLogsRequest(decodeProtobufRequest('logs', otlpProtobuf('logs', logs)), tenantOpts)
    expect(fromProtobuf.ok && fromProtobuf.events).toHaveLength(2)
    expect(fromProtobuf).toEqual(decodeLogsRequest(logs, tenantOpts))
  })
})

describe('hostile protobuf is a malformed request (400 / INVALID_ARGUMENT), never a crash', () => {
  const good = tracesProtobuf(jsExporterPayload())

  it('truncated', () => {
    for (const cut of [1, 7, Math.floor(good.length / 2), good.length - 1]) expect(malformed('traces', good.subarray(0, cut))).toMatch(/^body is not a valid ExportTraceServiceRequest: /)
  })

  it('a declared length far past the end', () => {
    // resource_spans (field 1, length-delimited) claiming 4 GiB.
    expect(malformed('traces', Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]))).toMatch(/invalid length encoding|index out of range/)
    // ... and 2 MiB, past the end of a short body.
    expect(malformed('traces', Uint8Array.from([0x0a, 0x80, 0x80, 0x80, 0x01, 0x00]))).toMatch(/index out of range/)
  })

  it('an invalid wire type', () => {
    expect(malformed('traces', Uint8Array.from([0x0f, 0x01]))).toMatch(/ExportTraceServiceRequest/)
  })

  /** A traces request whose one attribute nests `levels` kvlists, built from the inside out (protobufjs's own encoder stops at its depth limit). */
  function nestedAttribute(levels: number): Uint8Array {
    const out = new Uint8Array(levels * 20 + 16)
    let pos = out.length
    const prepend = (bytes: number[]) => {
      pos -= bytes.length
      out.set(bytes, pos)
    }
    const varint = (n: number) => Array.from(protobuf.Writer.create().uint32(n).finish())
    prepend([0x0a, 0x04, ...Buffer.from('leaf')]) // AnyValue.string_value
    for (let i = 0; i < levels; i++) {
      prepend([0x12, ...varint(out.length - pos)]) // KeyValue.value
      prepend([0x0a, 0x01, 0x6b]) // KeyValue.key = "k"
      prepend([0x0a, ...varint(out.length - pos)]) // KeyValueList.values
      prepend([0x32, ...varint(out.length - pos)]) // AnyValue.kvlist_value
    }
    const span = protobuf.Writer.create()
    span.uint32(0x0a).bytes(Buffer.from(TRACE_ID, 'hex')).uint32(0x12).bytes(Buffer.from('eee19b7ec3c1b174', 'hex')) // trace_id, span_id
    span.uint32(0x39).fixed64(1).uint32(0x41).fixed64(2) // start_time_unix_nano, end_time_unix_nano
    span.uint32(0x4a).fork().uint32(0x0a).string('deep').uint32(0x12).bytes(out.subarray(pos)).ldelim() // attributes
    // ExportTraceServiceRequest.resource_spans -> ResourceSpans.scope_spans -> ScopeSpans.spans
    return protobuf.Writer.create().uint32(0x0a).fork().uint32(0x12).fork().uint32(0x12).bytes(span.finish()).ldelim().ldelim().finish()
  }

  it('AnyValue nesting: 25 levels decode, 40 are past the protobuf depth limit, 50,000 too', () => {
    const d = decodeTraceRequest(decodeProtobufRequest('traces', nestedAttribute(25)), ctx)
    expect(d.ok && d.spans[0]!.attributes.deep).toBe('{"k":'.repeat(25) + '"leaf"' + '}'.repeat(25))
    expect(malformed('traces', nestedAttribute(40))).toMatch(/nested deeper than 100 messages/)
    expect(malformed('traces', nestedAttribute(50_000))).toMatch(/nested deeper than 100 messages/)
  })

  it('a message of another signal reads as nothing usable: refused, or every item rejected', () => {
    const metricsBytes = otlpProtobuf('metrics', fixture('claude-code-metrics.json'))
    let decoded: unknown
    try {
      decoded = decodeProtobufRequest('traces', metricsBytes)
    } catch (err) {
      expect(err).toBeInstanceOf(MalformedRequest)
      return
    }
    const d = decodeTraceRequest(decoded, ctx)
    expect(d.ok ? d.spans : []).toEqual([])
  })

  it('empty bytes are an empty request: nothing to accept, not malformed', () => {
    expect(decodeProtobufRequest('traces', new Uint8Array(0))).toEqual({ resourceSpans: [] })
    expect(decodeTraceRequest(decodeProtobufRequest('traces', new Uint8Array(0)), ctx)).toEqual({ ok: true, spans: [], rejected: [] })
    expect(decodeMetricsRequest(decodeProtobufRequest('metrics', new Uint8Array(0)), tenantOpts)).toEqual({ ok: true, points: [], rejected: [] })
    expect(decodeLogsRequest(decodeProtobufRequest('logs', new Uint8Array(0)), tenantOpts)).toEqual({ ok: true, events: [], rejected: [] })
  })
})

describe('responses', () => {
  it('partial_success only when something was rejected', () => {
    expect(encodeExportResponse('traces', { field: 'rejectedSpans', rejected: 0, errorMessage: '' })).toHaveLength(0)
    const bytes = encodeExportResponse('logs', { field: 'rejectedLogRecords', rejected: 3, errorMessage: 'bad' })
    // partial_success (1) { rejected_log_records (1): 3, error_message (2): "bad" }
    expect(Buffer.from(bytes).toString('hex')).toBe('0a0708031203626164')
  })

  it('encodes requests it can read back', () => {
    expect(decodeProtobufRequest('logs', encodeProtobufRequest('logs', { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '5', eventName: 'e' }] }] }] }))).toEqual({
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '5', eventName: 'e', attributes: [] }] }] }],
    })
  })
})
