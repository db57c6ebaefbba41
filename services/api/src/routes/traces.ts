/** GET /traces (the page envelope) and GET /traces/{trace_id} (the detail), read from ClickHouse. */
import { Hono } from 'hono'
import type { ControlState } from '@svc/shared/control/state'
import { workspaceRetentionHours } from '@svc/shared/domain/retention'
import { SCHEMA_VERSION, SCORER_VERSION } from '@svc/shared/domain/versions'
import { notFound } from '@svc/shared/http/errors'
import { getTrace, listTraces } from '@svc/shared/store/queries/traces'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { encodeCursor, parseTraceListQuery } from '../params.js'

export interface TraceRouteDeps {
  store: Store
  state: ControlState
  defaultRetentionHours: number
}

export function traceRoutes({ store, state, defaultRetentionHours }: TraceRouteDeps): Hono {
  const app = new Hono()
  // Reads apply the workspace's current retention at once; physical deletion (TTL) follows later.
  const retentionFloorNs = (workspaceId: string) =>
    BigInt(Date.now() - workspaceRetentionHours(state, workspaceId, defaultRetentionHours) * 3600_000) * 1_000_000n

  mount(app, ROUTES.listTraces, state, async (c) => {
    const q = parseTraceListQuery(c.req.query())
    const ws = targetWorkspace(c)
    const page = await listTraces(store, { workspaceId: ws.id, ...q, retentionFloorNs: retentionFloorNs(ws.id) })
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
    const trace = /^[0-9a-f]{32}$/.test(traceId) ? await getTrace(store, { workspaceId: ws.id, traceId, retentionFloorNs: retentionFloorNs(ws.id) }) : null
    if (!trace) throw notFound(`trace ${raw} not found in this workspace (unknown, or older than the retention window)`)
    return c.json(trace)
  })
  return app
}
