/** Retention over the real app and embedded ClickHouse: preview, confirm tokens, reads applying the window. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiHarness, ORG, WS, type Harness } from '../test-support/harness.js'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = `dr_${'r'.repeat(40)}`
const HOUR = 3_600_000
let h: Harness

/** One span per trace, started `ageHours` ago. */
const span = (trace: string, ageHours: number) => {
  const start = BigInt(Date.now() - ageHours * HOUR) * 1_000_000n
  return {
    org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: trace, span_id: trace.slice(0, 16), parent_span_id: '', name: 'root', kind: 'SERVER',
    start_time: start.toString(), end_time: (start + 1_000_000n).toString(), is_llm: 1, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 400 * 24 * 3600,
  }
}
const OLD = 'a'.repeat(32) // 60 days
const MONTH = 'b'.repeat(32) // 20 days
const FRESH = 'c'.repeat(32) // 2 hours

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'admin' }, defaultRetentionHours: 2160 })
  await h.store.insert('spans_v1', [span(OLD, 60 * 24), span(MONTH, 20 * 24), span(FRESH, 2)])
}, 60_000)
afterAll(() => h?.close())

const W = '/v1/observ/orgs/acme/workspaces/agents'
async function req(method: string, path: string, body?: unknown) {
  const res = await h.app.request(W + path, { method, headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as TestJson }
}

describe('retention', () => {
  it('starts at the deployment default, not enabled', async () => {
    expect((await req('GET', '/retention')).body).toEqual({ enabled: false, hours: 2160, effective_hours: 2160, default_hours: 2160, updated_at: null, rollups_thin_out: false })
  })

  it('previews without changing anything; only the nine windows are accepted (422)', async () => {
    const p = await req('POST', '/retention:preview', { hours: 720 })
    expect(p.status).toBe(200)
    expect(p.body).toMatchObject({ hours: 720, spans_to_delete: 1, traces_affected: 1 })
    expect(Date.now() - Date.parse(p.body.oldest_deleted)).toBeGreaterThan(59 * 24 * HOUR)
    expect(typeof p.body.confirm_token).toBe('string')
    expect((await req('POST', '/retention:preview', { hours: 24 })).body).toMatchObject({ spans_to_delete: 2, traces_affected: 2 })
    expect((await req('POST', '/retention:preview', { hours: 8760 })).body).toMatchObject({ spans_to_delete: 0, traces_affected: 0, oldest_deleted: null })
    for (const bad of [{ hours: 25 }, { hours: '720' }, {}, { hours: 720, extra: 1 }]) expect((await req('POST', '/retention:preview', bad)).status).toBe(422)
    expect((await req('GET', `/traces/${OLD}`)).status).toBe(200)
  })

  it('shortening needs the confirm token (422 without), refuses a token for other hours or other data (409), and applies to reads at once', async () => {
    expect((await req('PUT', '/retention', { enabled: true, hours: 720 })).status).toBe(422)
    expect((await req('PUT', '/retention', { enabled: true, hours: 720, confirm_token: 'forged.token' })).status).toBe(422)
    const for24 = (await req('POST', '/retention:preview', { hours: 24 })).body.confirm_token
    expect((await req('PUT', '/retention', { enabled: true, hours: 720, confirm_token: for24 })).status).toBe(409)

    const token = (await req('POST', '/retention:preview', { hours: 720 })).body.confirm_token
    // Data changes after the preview: a late span older than the new window arrives.
    await h.store.insert('spans_v1', [span('d'.repeat(32), 50 * 24)])
    expect((await req('PUT', '/retention', { enabled: true, hours: 720, confirm_token: token })).status).toBe(409)

    const fresh = (await req('POST', '/retention:preview', { hours: 720 })).body.confirm_token
    const put = await req('PUT', '/retention', { enabled: true, hours: 720, confirm_token: fresh })
    expect(put.status).toBe(200)
    expect(put.body).toMatchObject({ enabled: true, hours: 720, effective_hours: 720, rollups_thin_out: false })
    expect((await req('GET', `/traces/${OLD}`)).status).toBe(404)
    expect((await req('GET', `/traces/${MONTH}`)).status).toBe(200)
    const listed = (await req('GET', '/traces?include_empty=true')).body.data.map((r: TestJson) => r.trace_id)
    expect(listed).not.toContain(OLD)
    expect(listed).toContain(MONTH)
  })

  it('lengthening needs no token; disabling returns to the deployment default; below 48 hours it flags thinning roll-ups', async () => {
    expect((await req('PUT', '/retention', { enabled: true, hours: 8760 })).body).toMatchObject({ hours: 8760, effective_hours: 8760 })
    expect((await req('GET', `/traces/${OLD}`)).status).toBe(200)
    // Disabling goes back to the default (2160 h): shorter than 8760, so it needs a token too.
    expect((await req('PUT', '/retention', { enabled: false })).status).toBe(422)
    const back = (await req('POST', '/retention:preview', { hours: 2160 })).body.confirm_token
    expect((await req('PUT', '/retention', { enabled: false, confirm_token: back })).body).toMatchObject({ enabled: false, hours: 8760, effective_hours: 2160 })
    const token = (await req('POST', '/retention:preview', { hours: 24 })).body.confirm_token
    const short = await req('PUT', '/retention', { enabled: true, hours: 24, confirm_token: token })
    expect(short.body).toMatchObject({ effective_hours: 24, rollups_thin_out: true })
    expect(short.body.warning).toMatch(/thin out/)
    expect((await req('PUT', '/retention', { enabled: true, hours: 30 })).status).toBe(422)
    expect((await req('PUT', '/retention', { hours: 720 })).status).toBe(422)
  })
})
