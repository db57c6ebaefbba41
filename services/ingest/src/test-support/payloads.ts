/**
 * Request bodies shaped exactly like stock exporters send them, for tests and the
 * decode throughput measurement.
 */

export const TRACE_ID = '5b8efff798038103d269b633813fc60c'
export const ROOT_ID = 'eee19b7ec3c1b174'
export const CHILD_ID = 'eee19b7ec3c1b173'

/**
 * OTel JS JsonTraceSerializer (otlp-transformer): hex ids, nanos as digit strings,
 * kind = SpanKind + 1 as an int, status { code } with message omitted when unset,
 * parentSpanId omitted on a root, int attributes as JSON numbers, resource and scope.
 */
export function jsExporterPayload() {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'support-agent' } },
            { key: 'telemetry.sdk.language', value: { stringValue: 'nodejs' } },
            { key: 'telemetry.sdk.name', value: { stringValue: 'opentelemetry' } },
            { key: 'telemetry.sdk.version', value: { stringValue: '2.0.1' } },
            { key: 'process.pid', value: { intValue: 4242 } },
          ],
          droppedAttributesCount: 0,
        },
        scopeSpans: [
          {
            scope: { name: 'agent-tracer', version: '1.0.0' },
            spans: [
              {
                traceId: TRACE_ID,
                spanId: ROOT_ID,
                name: 'invoke_agent support',
                kind: 1,
                startTimeUnixNano: '1718000000000000000',
                endTimeUnixNano: '1718000002500000000',
                attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }],
                droppedAttributesCount: 0,
                events: [],
                droppedEventsCount: 0,
                status: { code: 0 },
                links: [],
                droppedLinksCount: 0,
                flags: 257,
              },
              {
                traceId: TRACE_ID,
                spanId: CHILD_ID,
                parentSpanId: ROOT_ID,
                name: 'chat gpt-4o',
                kind: 3,
                startTimeUnixNano: '1718000000100000000',
                endTimeUnixNano: '1718000001900000000',
                attributes: [
                  { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
                  { key: 'gen_ai.usage.input_tokens', value: { intValue: 812 } },
                  { key: 'gen_ai.usage.output_tokens', value: { intValue: 95 } },
                  { key: 'gen_ai.request.temperature', value: { doubleValue: 0.2 } },
                  { key: 'gen_ai.response.finish_reasons', value: { arrayValue: { values: [{ stringValue: 'stop' }] } } },
                ],
                droppedAttributesCount: 0,
                events: [
                  {
                    attributes: [{ key: 'gen_ai.prompt', value: { stringValue: 'hello' } }],
                    name: 'gen_ai.content.prompt',
                    timeUnixNano: '1718000000100000001',
                    droppedAttributesCount: 0,
                  },
                ],
                droppedEventsCount: 0,
                status: { code: 1 },
                links: [],
                droppedLinksCount: 0,
                flags: 257,
              },
            ],
          },
        ],
      },
    ],
  }
}

/**
 * Python SDK / Collector (pdata JSON marshaller) style: parentSpanId "" on roots,
 * enum names for kind and status code, ints as strings (proto3 JSON int64), and
 * the legacy-free scopeSpans with an empty scope name.
 */
export function collectorPayload() {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'rag-worker' } }, { key: 'svc.project_id', value: { stringValue: 'research' } }] },
        scopeSpans: [
          {
            scope: {},
            spans: [
              {
                traceId: 'ABCDEF0123456789ABCDEF0123456789',
                spanId: '0123456789ABCDEF',
                parentSpanId: '',
                traceState: '',
                name: 'GET /search',
                kind: 'SPAN_KIND_CLIENT',
                startTimeUnixNano: '1718000000000000001',
                endTimeUnixNano: '1718000000000000999',
                attributes: [{ key: 'http.status_code', value: { intValue: '200' } }],
                status: { code: 'STATUS_CODE_ERROR', message: 'upstream timeout' },
              },
            ],
          },
        ],
        schemaUrl: 'https://opentelemetry.io/schemas/1.21.0',
      },
    ],
  }
}

/** The spec's flat span form. */
export function flatPayload() {
  return [
    {
      trace_id: TRACE_ID,
      span_id: ROOT_ID,
      name: 'agent.run',
      start_time_unix_ns: 1718000000000000000,
      end_time_unix_ns: '1718000001000000000',
      status_code: 'OK',
      attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 10, 'svc.end_user': 'u1', nested: { a: [1, 'x'] }, 'service.name': 'flat-svc' },
    },
  ]
}
