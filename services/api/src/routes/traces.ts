/** GET /traces (the page envelope) and GET /traces/{trace_id} (the detail), read from ClickHouse. */
import { Hono } from 'hono'
import { z } from 'zod'
import type { ControlState } from '@svc/shared/control/state'
import { retentionFloorNs } from '@svc/shared/domain/retention'
import { SCHEMA_VERSION, SCORER_VERSION } from '@svc/shared/domain/versions'
import { notFound } from '@svc/shared/http/errors'
import { listTraces } from '@svc/shared/store/queries/trace-list'
import { getTrace } from '@svc/shared/store/queries/traces'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime, TraceIdParams } from '../openapi/schemas.js'
import { encodeCursor, parseTraceListQuery, TraceListQuerySchema } from '../params.js'

const TraceRow = z.object({
  trace_id: z.string(),
  ws_uuid_out: z.string().uuid(),
  project_id_out: z.string(),
  trace_start: IsoTime,
  trace_end: IsoTime,
  cost_usd_total: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  grade: z.string().describe('latest letter grade; empty when none'),
  score: z.number().describe('reliability score 0-100'),
  scorer_version: z.string().describe('empty: never scored'),
  span_count: z.number().int(),
})
const Span = z
  .object({
    span_id: z.string(),
    parent_span_id: z.string().nullable(),
    name: z.string(),
    kind: z.string(),
    start_time: IsoTime,
    duration_ms: z.number(),
    status_code: z.string(),
    attributes: z.record(z.unknown()),
  })
  .passthrough()
const TraceDetail = z
  .object({ trace_id: z.string(), project_id: z.string(), start_time: IsoTime, duration_ms: z.number(), total_cost_usd: z.number(), grade: z.string(), spans: z.array(Span) })
  .passthrough()

describeRoute({
  route: ROUTES.listTraces,
  summary: 'List traces',
  description: 'Newest first (trace_start, then trace_id, descending), keyset-paged with next_cursor.',
  tags: ['Traces'],
  query: TraceListQuerySchema,
  responses: {
    200: {
      description: 'A page of traces',
      schema: z.object({
        data: z.array(TraceRow),
        next_cursor: z.string().nullable(),
        meta: z.object({ workspace_id: z.string().uuid(), scorer_version: z.string(), schema_version: z.string(), request_id: z.string() }),
      }),
    },
  },
})
describeRoute({
  route: ROUTES.getTrace,
  summary: 'Get a trace with its spans',
  description: 'An unknown trace, or one older than the retention window, answers 404.',
  tags: ['Traces'],
  params: TraceIdParams,
  responses: { 200: { description: 'The trace', schema: TraceDetail } },
})

export interface TraceRouteDeps {
  store: Store
  state: ControlState
  defaultRetentionHours: number
}

export function traceRoutes({ store, state, defaultRetentionHours }: TraceRouteDeps): Hono {
  const app = new Hono()
  const floorNs = (workspaceId: string) => retentionFloorNs(state, workspaceId, defaultRetentionHours)

  mount(app, ROUTES.listTraces, state, async (c) => {
    const q = parseTraceListQuery(c.req.query())
    const ws = targetWorkspace(c)
    const page = await listTraces(store, { workspaceId: ws.id, ...q, retentionFloorNs: floorNs(ws.id) })
    return c.json({
      data: page.rows,
      next_cursor: page.nextCursor ? encodeCursor(page.nextCursor) : null,
      meta: { workspace_id: ws.id, scorer_version: SCORER_VERSION, schema_version: SCHEMA_VERSION, request_id: c.get('requestId') },
    })
  })

  mount(app, ROUTES.getTrace, state, async (c) => {
    const ws = targetWorkspace(c)
    const raw = c.req.param('trace_id') ?? ''
    const traceId = raw.toLowerCase()
    const trace = /^[0-9a-f]{32}$/.test(traceId) ? await getTrace(store, { workspaceId: ws.id, traceId, retentionFloorNs: floorNs(ws.id) }) : null
    if (!trace) throw notFound(`trace ${raw} not found in this workspace (unknown, or older than the retention window)`)
    return c.json(trace)
  })
  return app
}
