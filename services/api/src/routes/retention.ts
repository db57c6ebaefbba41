/**
 * Data retention of a workspace: read, preview a new window (read-only, with a
 * confirm token), and change it. Shortening deletes data, so it needs the token of
 * a preview whose figures still hold: the token carries the preview's hourly cutoff
 * and counts, signed; at PUT the counts are taken again and any difference (late
 * spans, a sweep, the hour moving on) makes it stale (409). Reads apply a new window
 * at once; the sweeper (assembler) then deletes what is outside it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { Hono } from 'hono'
import { z } from 'zod'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import type { MasterKey } from '@svc/shared/control/envelope'
import { RETENTION_HOURS, RetentionHours, settingOf, writeSetting, type RetentionSetting } from '@svc/shared/control/settings'
import { ROLLUP_SAFE_HOURS, effectiveRetentionHours, retentionCutoffMs } from '@svc/shared/domain/retention'
import { conflict, unprocessable } from '@svc/shared/http/errors'
import { previewExpiry, type ExpiryPreview } from '@svc/shared/store/queries/retention'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { actorOf } from '../actor.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime } from '../openapi/schemas.js'
import { jsonBody } from './auth.js'

const Hours = RetentionHours.describe(`one of ${RETENTION_HOURS.join(', ')}`)
const PreviewBody = z.object({ hours: Hours }).strict()
const PutRetentionBody = z.object({
  enabled: z.boolean(),
  hours: Hours.nullish(),
  confirm_token: z.string().max(2048).nullish().describe('from retention:preview of the new window; needed when the change shortens the effective window'),
})

const RetentionOut = z.object({
  enabled: z.boolean(),
  hours: z.number().int(),
  effective_hours: z.number().int(),
  default_hours: z.number().int().describe('the deployment default window (SVC_DEFAULT_RETENTION_HOURS), which applies while enabled is false'),
  updated_at: IsoTime.nullable(),
  rollups_thin_out: z.boolean().describe('true below 48 hours'),
  warning: z.string().optional(),
})

const TAGS = ['Retention']
describeRoute({ route: ROUTES.getRetention, summary: 'Get data retention', tags: TAGS, responses: { 200: { description: 'The retention setting', schema: RetentionOut } } })
describeRoute({
  route: ROUTES.previewRetention,
  summary: 'Preview a retention window',
  description: 'Read-only: what a window of `hours` would delete, and a confirm_token signing those figures. Hours outside the allowed list answer 422.',
  tags: TAGS,
  body: PreviewBody,
  responses: {
    200: {
      description: 'The figures and the confirm token',
      schema: z.object({ hours: z.number().int(), spans_to_delete: z.number().int(), traces_affected: z.number().int(), oldest_deleted: IsoTime.nullable(), confirm_token: z.string() }),
    },
  },
  errors: [422],
})
describeRoute({
  route: ROUTES.putRetention,
  summary: 'Change data retention',
  description: 'Shortening the effective window needs the confirm_token of a preview of the new window: missing or foreign 422; for other hours, or figures that no longer hold, 409 with detail.previewed and detail.now.',
  tags: TAGS,
  body: PutRetentionBody,
  responses: { 200: { description: 'The retention setting', schema: RetentionOut } },
  errors: [409, 422],
})

interface TokenClaims {
  ws: string
  hours: number
  cutoff_ms: number
  spans: number
  traces: number
}

export function retentionRoutes(control: ControlWriter, deps: { store: Store; master: MasterKey; defaultRetentionHours: number }): Hono {
  const app = new Hono()
  const { state } = control
  const { store } = deps
  const tokenKey = createHmac('sha256', deps.master.key).update('retention-confirm-token').digest()
  const sign = (payload: string) => createHmac('sha256', tokenKey).update(payload).digest('base64url')
  const issue = (claims: TokenClaims) => {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
    return `${payload}.${sign(payload)}`
  }
  const verify = (token: string): TokenClaims | null => {
    const [payload, mac] = token.split('.')
    if (!payload || !mac) return null
    const want = Buffer.from(sign(payload))
    const got = Buffer.from(mac)
    if (want.length !== got.length || !timingSafeEqual(want, got)) return null
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims
    } catch {
      return null
    }
  }

  const view = (wsId: string) => {
    const s = settingOf(state, wsId, 'retention')
    const effective = effectiveRetentionHours(s, deps.defaultRetentionHours)
    return {
      enabled: s?.enabled ?? false,
      hours: s?.hours ?? deps.defaultRetentionHours,
      effective_hours: effective,
      default_hours: deps.defaultRetentionHours,
      updated_at: s ? new Date(s.updated_at_ms).toISOString() : null,
      rollups_thin_out: effective < ROLLUP_SAFE_HOURS,
      ...(effective < ROLLUP_SAFE_HOURS ? { warning: `data expires after ${effective} hours, before daily roll-ups (drift, correlation, savings) run: those panels thin out` } : {}),
    }
  }

  const preview = (wsId: string, hours: number, nowMs = Date.now()): Promise<ExpiryPreview & { cutoffMs: number }> => {
    const cutoffMs = retentionCutoffMs(nowMs, hours)
    return previewExpiry(store, wsId, cutoffMs).then((p) => ({ ...p, cutoffMs }))
  }

  mount(app, ROUTES.getRetention, state, (c) => c.json(view(targetWorkspace(c).id)))

  mount(app, ROUTES.previewRetention, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, z.unknown())
    const parsed = PreviewBody.safeParse(body)
    if (!parsed.success) throw unprocessable('send exactly { hours } with one of the allowed values', { accepted_hours: RETENTION_HOURS, issues: parsed.error.issues.map((i) => i.message) })
    const p = await preview(ws.id, parsed.data.hours)
    return c.json({
      hours: parsed.data.hours,
      spans_to_delete: p.spans,
      traces_affected: p.traces,
      oldest_deleted: p.oldestNs === null ? null : new Date(Number(BigInt(p.oldestNs) / 1_000_000n)).toISOString(),
      confirm_token: issue({ ws: ws.id, hours: parsed.data.hours, cutoff_ms: p.cutoffMs, spans: p.spans, traces: p.traces }),
    })
  })

  mount(app, ROUTES.putRetention, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, z.unknown())
    const parsed = PutRetentionBody.safeParse(body)
    if (!parsed.success) throw unprocessable('invalid retention change', { accepted_hours: RETENTION_HOURS, issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) })
    const current = settingOf(state, ws.id, 'retention')
    const next: RetentionSetting = { enabled: parsed.data.enabled, hours: parsed.data.hours ?? current?.hours ?? deps.defaultRetentionHours, updated_at_ms: Date.now() }
    const before = effectiveRetentionHours(current, deps.defaultRetentionHours)
    const after = effectiveRetentionHours(next, deps.defaultRetentionHours)
    if (after < before) {
      const token = parsed.data.confirm_token
      if (!token) throw unprocessable(`shortening retention from ${before} to ${after} hours deletes data: run POST retention:preview and send its confirm_token`)
      const claims = verify(token)
      if (!claims || claims.ws !== ws.id) throw unprocessable('confirm_token is not a token of this workspace; run retention:preview again')
      if (claims.hours !== after) throw conflict(`confirm_token was issued for ${claims.hours} hours, not ${after}; run retention:preview again`)
      const now = await preview(ws.id, after)
      if (now.cutoffMs !== claims.cutoff_ms || now.spans !== claims.spans || now.traces !== claims.traces)
        throw conflict('the data changed since the preview (its figures no longer hold); run retention:preview again', { previewed: { spans: claims.spans, traces: claims.traces }, now: { spans: now.spans, traces: now.traces } })
    }
    await writeSetting(control, actorOf(c), ws.id, 'retention', next)
    return c.json(view(ws.id))
  })

  return app
}
