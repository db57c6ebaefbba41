import { describe, expect, it } from 'vitest'
import type { SpanRecord } from '@svc/shared/bus/records'
import { spanV1 } from '@svc/shared/bus/records'
import { CHILD_ID, collectorPayload, flatPayload, jsExporterPayload, ROOT_ID, TRACE_ID } from '../test-support/payloads.js'
import { decodeTraceRequest, type DecodeResult } from './decode.js'

const ctx = { principal: { org_id: 'org-1', workspace_id: 'ws-1', project_id: 'key-project' }, receivedAtMs: 1_718_000_005_000 }

function ok(r: DecodeResult) {
  if (!r.ok) throw new Error(`expected ok, got: ${r.message}`)
  return r
}

/** One OTLP span with the given fields over a minimal valid span. */
function otlp(span: Record<string, unknown>, resourceAttributes: unknown[] = []) {
  return {
    resourceSpans: [
      {
        resource: { attributes: resourceAttributes },
        scopeSpans: [{ scope: { name: 's' }, spans: [{ traceId: TRACE_ID, spanId: ROOT_ID, name: 'n', startTimeUnixNano: '1', endTimeUnixNano: '2', ...span }] }],
      },
    ],
  }
}

const attr = (key: string, value: unknown) => ({ key, value })
const only = (r: DecodeResult): SpanRecord => {
  const spans = ok(r).spans
  expect(spans).toHaveLength(1)
  return spans[0]!
}

describe('OTLP/JSON from stock exporters', () => {
  it('decodes the OTel JS exporter shape', () => {
    const r = ok(decodeTraceRequest(jsExporterPayload(), ctx))
    expect(r.rejected).toEqual([])
    const [root, child] = r.spans
    expect(root).toMatchObject({
      org_id: 'org-1',
      workspace_id: 'ws-1',
      project_id: 'key-project',
      trace_id: TRACE_ID,
      span_id: ROOT_ID,
      parent_span_id: '',
      name: 'invoke_agent support',
      kind: 'INTERNAL',
      start_time_unix_nano: 1718000000000000000n,
      end_time_unix_nano: 1718000002500000000n,
      status_code: 'UNSET',
      status_message: '',
      service_name: 'support-agent',
      scope_name: 'agent-tracer',
      events_json: '[]',
      links_json: '[]',
      received_at_ms: ctx.receivedAtMs,
    })
    expect({ ...root!.resource_attributes }).toEqual({
      'service.name': 'support-agent',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.version': '2.0.1',
      'process.pid': '4242',
    })
    expect(child).toMatchObject({ parent_span_id: ROOT_ID, span_id: CHILD_ID, kind: 'CLIENT', status_code: 'OK' })
    expect({ ...child!.attributes }).toEqual({
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': '812',
      'gen_ai.usage.output_tokens': '95',
      'gen_ai.request.temperature': '0.2',
      'gen_ai.response.finish_reasons': '["stop"]',
    })
    expect(child!.json_attribute_keys.sort()).toEqual(
      ['resource.process.pid', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.request.temperature', 'gen_ai.response.finish_reasons'].sort(),
    )
    expect(JSON.parse(child!.events_json)).toEqual([{ time_unix_nano: '1718000000100000001', name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'hello' } }])
  })

  it('decodes the Python/Collector shape (empty parent, enum names, upper-case hex, svc.project_id on the resource)', () => {
    const s = only(decodeTraceRequest(collectorPayload(), ctx))
    expect(s).toMatchObject({
      trace_id: 'abcdef0123456789abcdef0123456789',
      span_id: '0123456789abcdef',
      parent_span_id: '',
      kind: 'CLIENT',
      status_code: 'ERROR',
      status_message: 'upstream timeout',
      scope_name: '',
      service_name: 'rag-worker',
      project_id: 'research',
      start_time_unix_nano: 1718000000000000001n,
    })
    expect(s.attributes['http.status_code']).toBe('200')
  })

  it('round-trips through the Avro span schema', () => {
    for (const s of ok(decodeTraceRequest(jsExporterPayload(), ctx)).spans) {
      const back = spanV1.decode(spanV1.encode(s))
      expect({ ...back, start_time_unix_nano: BigInt(back.start_time_unix_nano), end_time_unix_nano: BigInt(back.end_time_unix_nano) }).toEqual({
        ...s,
        resource_attributes: { ...s.resource_attributes },
        attributes: { ...s.attributes },
      })
    }
  })

  it('accepts the legacy instrumentationLibrarySpans', () => {
    const body = { resourceSpans: [{ instrumentationLibrarySpans: [{ instrumentationLibrary: { name: 'old' }, spans: otlp({}).resourceSpans[0]!.scopeSpans[0]!.spans }] }] }
    expect(only(decodeTraceRequest(body, ctx)).scope_name).toBe('old')
  })

  it('maps every kind and status spelling', () => {
    const kinds: Array<[unknown, string]> = [[0, 'UNSPECIFIED'], [1, 'INTERNAL'], [2, 'SERVER'], [5, 'CONSUMER'], ['SPAN_KIND_SERVER', 'SERVER'], ['SPAN_KIND_PRODUCER', 'PRODUCER'], [9, 'UNSPECIFIED'], [undefined, 'UNSPECIFIED']]
    for (const [kind, want] of kinds) expect(only(decodeTraceRequest(otlp({ kind }), ctx)).kind).toBe(want)
    const codes: Array<[unknown, string]> = [[0, 'UNSET'], [1, 'OK'], [2, 'ERROR'], ['STATUS_CODE_OK', 'OK'], ['STATUS_CODE_ERROR', 'ERROR'], [undefined, 'UNSET']]
    for (const [code, want] of codes) expect(only(decodeTraceRequest(otlp({ status: { code } }), ctx)).status_code).toBe(want)
  })

  it('takes times as digit strings or numbers, and accepts end before start', () => {
    expect(only(decodeTraceRequest(otlp({ startTimeUnixNano: 1718000000000000000, endTimeUnixNano: '1718000000000000001' }), ctx))).toMatchObject({
      start_time_unix_nano: 1718000000000000000n,
      end_time_unix_nano: 1718000000000000001n,
    })
    expect(only(decodeTraceRequest(otlp({ startTimeUnixNano: '20', endTimeUnixNano: '10' }), ctx))).toMatchObject({ start_time_unix_nano: 20n, end_time_unix_nano: 10n })
  })

  it('stores a missing name as empty and ignores unknown fields', () => {
    expect(only(decodeTraceRequest(otlp({ name: undefined, somethingNew: { x: 1 } }), ctx)).name).toBe('')
  })

  it('keeps links and their attributes', () => {
    const s = only(decodeTraceRequest(otlp({ links: [{ traceId: TRACE_ID.toUpperCase(), spanId: CHILD_ID, attributes: [attr('k', { boolValue: true })] }] }), ctx))
    expect(JSON.parse(s.links_json)).toEqual([{ trace_id: TRACE_ID, span_id: CHILD_ID, attributes: { k: true } }])
  })
})

describe('AnyValue variants', () => {
  const decodeOne = (value: unknown) => {
    const s = only(decodeTraceRequest(otlp({ attributes: [attr('k', value)] }), ctx))
    return { text: s.attributes.k, json: s.json_attribute_keys.includes('k') }
  }

  it.each([
    ['stringValue verbatim', { stringValue: 'say "hi"' }, 'say "hi"', false],
    ['empty string', { stringValue: '' }, '', false],
    ['intValue number', { intValue: 42 }, '42', true],
    ['intValue string', { intValue: '-7' }, '-7', true],
    ['int64 beyond 2^53 kept exact', { intValue: '9223372036854775807' }, '9223372036854775807', true],
    ['int64 just past 2^53', { intValue: '9007199254740993' }, '9007199254740993', true],
    ['doubleValue', { doubleValue: 1.5 }, '1.5', true],
    ['doubleValue as string', { doubleValue: '2.25' }, '2.25', true],
    ['doubleValue NaN', { doubleValue: 'NaN' }, '"NaN"', true],
    ['doubleValue -Infinity', { doubleValue: '-Infinity' }, '"-Infinity"', true],
    ['boolValue', { boolValue: false }, 'false', true],
    ['bytesValue as base64 text', { bytesValue: 'AAEC/w==' }, '"AAEC/w=="', true],
    ['empty AnyValue', {}, 'null', true],
    ['missing value', undefined, 'null', true],
    ['arrayValue', { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '9007199254740993' }, { boolValue: true }, {}] } }, '["a",9007199254740993,true,null]', true],
    ['empty arrayValue', { arrayValue: {} }, '[]', true],
    [
      'kvlistValue nested',
      { kvlistValue: { values: [attr('a', { doubleValue: 1 }), attr('b', { arrayValue: { values: [{ kvlistValue: { values: [attr('c', { stringValue: 'd' })] } }] } })] } },
      '{"a":1,"b":[{"c":"d"}]}',
      true,
    ],
  ])('%s', (_name, value, text, json) => {
    expect(decodeOne(value)).toEqual({ text, json })
  })

  it('prefixes JSON resource keys with resource. and keeps resource and span maps apart', () => {
    const s = only(decodeTraceRequest(otlp({ attributes: [attr('n', { intValue: 1 })] }, [attr('n', { intValue: 2 }), attr('host', { stringValue: 'h' })]), ctx))
    expect(s.attributes.n).toBe('1')
    expect(s.resource_attributes.n).toBe('2')
    expect(s.json_attribute_keys.sort()).toEqual(['n', 'resource.n'])
  })

  it('treats "__proto__" as an ordinary key', () => {
    const s = only(decodeTraceRequest(otlp({ attributes: [attr('__proto__', { stringValue: 'x' })] }), ctx))
    expect(Object.keys(s.attributes)).toEqual(['__proto__'])
    // (avsc's map decoder assigns keys onto a plain object, so a consumer drops this key
    // rather than being polluted by it: the string is ignored by the __proto__ setter.)
    expect(Object.getPrototypeOf(spanV1.decode(spanV1.encode(s)).attributes)).toBe(Object.prototype)
  })

  it('rejects the span (not the request) for an undecodable value', () => {
    for (const value of [{ intValue: 'twelve' }, { intValue: 1.5 }, { doubleValue: 'abc' }, { boolValue: 'yes' }, { arrayValue: { values: 'x' } }, 'plain']) {
      const r = ok(decodeTraceRequest(otlp({ attributes: [attr('k', value)] }), ctx))
      expect(r.spans).toHaveLength(0)
      expect(r.rejected[0]!.reason).toMatch(/^attribute "k": /)
    }
  })
})

describe('tenant fields', () => {
  it('always takes org and workspace from the principal, even when the payload names others', () => {
    const s = only(decodeTraceRequest(otlp({ attributes: [attr('svc.org_id', { stringValue: 'evil-org' }), attr('svc.workspace_id', { stringValue: 'evil-ws' })] }, [attr('svc.workspace_id', { stringValue: 'evil-ws' })]), ctx))
    expect(s.org_id).toBe('org-1')
    expect(s.workspace_id).toBe('ws-1')
  })

  it('takes project_id from the span, then the resource, then the key', () => {
    const res = [attr('svc.project_id', { stringValue: 'from-resource' })]
    expect(only(decodeTraceRequest(otlp({ attributes: [attr('svc.project_id', { stringValue: 'from-span' })] }, res), ctx)).project_id).toBe('from-span')
    expect(only(decodeTraceRequest(otlp({ attributes: [attr('svc.project_id', { stringValue: '' })] }, res), ctx)).project_id).toBe('from-resource')
    expect(only(decodeTraceRequest(otlp({ attributes: [attr('svc.project_id', { intValue: 5 })] }), ctx)).project_id).toBe('key-project')
    expect(only(decodeTraceRequest(otlp({}), ctx)).project_id).toBe('key-project')
  })
})

describe('ids in base64 (protobuf\'s JSON mapping, MessageToJson)', () => {
  const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64')
  const url = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  // Chosen so their base64 has '+' and '/': the URL-safe form then differs.
  const TRACE = 'fbeffbeffbeffbeffbeffbeffbeffbef'
  const SPAN = 'fbeffbeffbeffbef'

  it('decodes padded standard base64 to the same hex as the hex form', () => {
    expect(b64(TRACE)).toHaveLength(24)
    expect(b64(SPAN)).toHaveLength(12)
    const s = only(decodeTraceRequest(otlp({ traceId: b64(TRACE), spanId: b64(SPAN), parentSpanId: b64(CHILD_ID) }), ctx))
    expect(s).toMatchObject({ trace_id: TRACE, span_id: SPAN, parent_span_id: CHILD_ID })
    expect(only(decodeTraceRequest(otlp({ traceId: TRACE, spanId: SPAN, parentSpanId: CHILD_ID }), ctx))).toMatchObject({ trace_id: s.trace_id, span_id: s.span_id, parent_span_id: s.parent_span_id })
  })

  it('decodes the URL-safe alphabet without padding too', () => {
    expect(url(b64(TRACE))).toMatch(/^[\w-]{22}$/)
    const s = only(decodeTraceRequest(otlp({ traceId: url(b64(TRACE)), spanId: url(b64(SPAN)) }), ctx))
    expect(s).toMatchObject({ trace_id: TRACE, span_id: SPAN })
  })

  it('reads an all-zero base64 parent as a root, and base64 link ids as hex', () => {
    const s = only(decodeTraceRequest(otlp({ parentSpanId: 'AAAAAAAAAAA=', links: [{ traceId: b64(TRACE), spanId: b64(SPAN) }, { traceId: 'ELSEWHERE', spanId: '' }] }), ctx))
    expect(s.parent_span_id).toBe('')
    expect(JSON.parse(s.links_json)).toEqual([
      { trace_id: TRACE, span_id: SPAN, attributes: {} },
      { trace_id: 'elsewhere', span_id: '', attributes: {} },
    ])
  })

  it('applies to the flat form as well', () => {
    const r = ok(decodeTraceRequest([{ trace_id: b64(TRACE), span_id: b64(SPAN), name: 'n', start_time_unix_ns: '1', end_time_unix_ns: '2' }], ctx))
    expect(r.spans.map((x) => [x.trace_id, x.span_id])).toEqual([[TRACE, SPAN]])
  })
})

describe('per-span rejections (dead-lettered, batch accepted)', () => {
  it.each([
    ['trace id too short', { traceId: 'abc' }, /traceId "abc" is not 32 hex/],
    ['trace id not hex', { traceId: 'z'.repeat(32) }, /not 32 hex/],
    ['trace id base64 of 15 bytes', { traceId: 'W47/95gDgQPSabYzgT/G' }, /not 32 hex characters \(or base64 of 16 bytes\)/],
    ['trace id base64 with a stray character', { traceId: 'W47/95gDgQPSabYzgT/GD*==' }, /not 32 hex/],
    ['trace id base64 of zeros', { traceId: 'AAAAAAAAAAAAAAAAAAAAAA==' }, /traceId is all zeros/],
    ['span id base64 of 9 bytes', { spanId: 'AAECAwQFBgcI' }, /spanId "AAECAwQFBgcI" is not 16 hex/],
    ['trace id zeros', { traceId: '0'.repeat(32) }, /traceId is all zeros/],
    ['trace id missing', { traceId: undefined }, /traceId is missing/],
    ['span id wrong length', { spanId: 'abcd' }, /spanId "abcd" is not 16 hex/],
    ['span id zeros', { spanId: '0'.repeat(16) }, /spanId is all zeros/],
    ['parent id not hex', { parentSpanId: 'xyz' }, /parentSpanId "xyz" is not 16 hex/],
    ['start missing', { startTimeUnixNano: undefined }, /startTimeUnixNano is missing/],
    ['start zero', { startTimeUnixNano: '0' }, /startTimeUnixNano is missing/],
    ['end unparseable', { endTimeUnixNano: '12:00' }, /endTimeUnixNano "12:00" is not/],
    ['end negative', { endTimeUnixNano: -5 }, /endTimeUnixNano -5 is not/],
    ['end beyond int64', { endTimeUnixNano: '99999999999999999999' }, /is not/],
  ])('%s', (_name, fields, reason) => {
    const body = otlp(fields)
    const good = { traceId: TRACE_ID, spanId: CHILD_ID, startTimeUnixNano: '1', endTimeUnixNano: '2' }
    body.resourceSpans[0]!.scopeSpans[0]!.spans.push(good as never)
    const r = ok(decodeTraceRequest(body, ctx))
    expect(r.spans.map((s) => s.span_id)).toEqual([CHILD_ID])
    expect(r.rejected).toHaveLength(1)
    expect(r.rejected[0]!.reason).toMatch(reason)
    expect(r.rejected[0]!.item).toBe(body.resourceSpans[0]!.scopeSpans[0]!.spans[0])
  })

  it('treats an all-zero parent id as a root', () => {
    expect(only(decodeTraceRequest(otlp({ parentSpanId: '0000000000000000' }), ctx)).parent_span_id).toBe('')
  })

  it('rejects every span of a resource whose attributes cannot be decoded', () => {
    const r = ok(decodeTraceRequest(otlp({}, [attr('bad', { intValue: 'x' })]), ctx))
    expect(r.spans).toHaveLength(0)
    expect(r.rejected[0]!.reason).toMatch(/^resource attribute "bad"/)
  })
})

describe('whole-request errors (400)', () => {
  it.each([
    ['a string', 'hello'],
    ['null', null],
    ['a number', 3],
    ['an object without resourceSpans', { spans: [] }],
    ['resourceSpans not a list', { resourceSpans: { scopeSpans: [] } }],
    ['resourceSpans null', { resourceSpans: null }],
    ['a resourceSpans item not an object', { resourceSpans: [7] }],
    ['scopeSpans not a list', { resourceSpans: [{ scopeSpans: {} }] }],
    ['spans not a list', { resourceSpans: [{ scopeSpans: [{ spans: 'x' }] }] }],
    ['a span not an object', { resourceSpans: [{ scopeSpans: [{ spans: [null] }] }] }],
    ['span attributes not a list', otlp({ attributes: { k: 'v' } })],
    ['resource attributes not a list', { resourceSpans: [{ resource: { attributes: { k: 'v' } }, scopeSpans: [] }] }],
    ['events not a list', otlp({ events: {} })],
    ['flat item not an object', [flatPayload()[0], 'span']],
    ['flat attributes not an object', [{ ...flatPayload()[0], attributes: ['a'] }]],
    ['flat attributes a string', [{ ...flatPayload()[0], attributes: 'a=b' }]],
    ['flat attributes null', [{ ...flatPayload()[0], attributes: null }]],
  ])('%s', (_name, body) => {
    const r = decodeTraceRequest(body, ctx)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toMatch(/\S/)
  })

  it('is a 400 even when an earlier span was merely invalid', () => {
    const body = otlp({ traceId: 'bad' })
    body.resourceSpans[0]!.scopeSpans[0]!.spans.push({ attributes: 'x' } as never)
    expect(decodeTraceRequest(body, ctx).ok).toBe(false)
  })

  it('accepts an empty resourceSpans list', () => {
    expect(decodeTraceRequest({ resourceSpans: [] }, ctx)).toEqual({ ok: true, spans: [], rejected: [] })
  })
})

describe('flat span array', () => {
  it('decodes the spec flat form', () => {
    const s = only(decodeTraceRequest(flatPayload(), ctx))
    expect(s).toMatchObject({
      org_id: 'org-1',
      workspace_id: 'ws-1',
      project_id: 'key-project',
      trace_id: TRACE_ID,
      span_id: ROOT_ID,
      parent_span_id: '',
      name: 'agent.run',
      kind: 'UNSPECIFIED',
      start_time_unix_nano: 1718000000000000000n,
      end_time_unix_nano: 1718000001000000000n,
      status_code: 'OK',
      service_name: 'flat-svc',
      events_json: '[]',
    })
    expect({ ...s.attributes }).toEqual({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': '10', 'svc.end_user': 'u1', nested: '{"a":[1,"x"]}', 'service.name': 'flat-svc' })
    expect(s.json_attribute_keys.sort()).toEqual(['gen_ai.usage.input_tokens', 'nested'])
    expect(s.resource_attributes).toEqual({})
  })

  it('takes optional fields and svc.project_id', () => {
    const s = only(
      decodeTraceRequest(
        [{ trace_id: TRACE_ID.toUpperCase(), span_id: CHILD_ID, parent_span_id: ROOT_ID, kind: 'SERVER', service_name: 'svc-a', status_code: 'error', name: 'x', start_time_unix_ns: 5, end_time_unix_ns: 6, attributes: { 'svc.project_id': 'p2', 'svc.org_id': 'evil' } }],
        ctx,
      ),
    )
    expect(s).toMatchObject({ trace_id: TRACE_ID, parent_span_id: ROOT_ID, kind: 'SERVER', service_name: 'svc-a', status_code: 'ERROR', project_id: 'p2', org_id: 'org-1' })
  })

  it('accepts missing attributes and dead-letters invalid spans', () => {
    const r = ok(
      decodeTraceRequest(
        [
          { trace_id: TRACE_ID, span_id: ROOT_ID, name: 'ok', start_time_unix_ns: 1, end_time_unix_ns: 2 },
          { trace_id: 'nope', span_id: ROOT_ID, start_time_unix_ns: 1, end_time_unix_ns: 2, attributes: {} },
          { trace_id: TRACE_ID, span_id: ROOT_ID, start_time_unix_ns: 'yesterday', end_time_unix_ns: 2, attributes: {} },
        ],
        ctx,
      ),
    )
    expect(r.spans).toHaveLength(1)
    expect(r.rejected.map((x) => x.reason)).toEqual(['trace_id "nope" is not 32 hex characters (or base64 of 16 bytes)', 'start_time_unix_ns "yesterday" is not a positive integer of nanoseconds'])
  })
})
