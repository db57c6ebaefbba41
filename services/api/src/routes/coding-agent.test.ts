/** GET .../coding-agent/{usage,commits,top-files} over a real embedded ClickHouse, rows as the consumer lands them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertCodingAgentRows } from '@svc/shared/store/queries/coding-agent'
import { apiHarness, WS, type Harness } from '../test-support/harness.js'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = `dr_${'c'.repeat(40)}`
const HOUR = 3_600_000
const DAY = 24 * HOUR
let h: Harness
const now = Date.now()
const ms = (agoMs: number) => String(now - agoMs)
const ns = (agoMs: number) => (BigInt(now - agoMs) * 1_000_000n).toString()

let n = 0
const metric = (o: { name: string; agoMs: number; delta: number; employee: string; session: string; type?: string }) => ({
  workspace_id: WS, metric_name: o.name, series_id: `s${n++}`, time_ns: ns(o.agoMs), start_ns: '0', metric_type: 'sum', temporality: 'delta', agent: 'claude_code',
  employee: o.employee, session_id: o.session, model: '', type: o.type ?? '', value: o.delta, count: 0, delta: o.delta, count_delta: 0, attributes: {}, received_at: ms(0),
})
const event = (o: { name: string; agoMs: number; employee: string; session: string; cost?: number; input?: number }) => ({
  workspace_id: WS, event_time: ms(o.agoMs), event_id: `e${n++}`, agent: 'claude_code', event_name: o.name, employee: o.employee, session_id: o.session, model: '',
  cost_usd: o.cost ?? 0, input_tokens: o.input ?? 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, lines_added: 0, lines_removed: 0, duration_ms: 0,
  tool_name: '', success: -1, decision: '', attributes: {}, received_at: ms(0),
})
const commit = (id: string, agoMs: number, employee = 'a@acme.com', session = 's1') => ({
  workspace_id: WS, commit_id: id, committed_at: ms(agoMs), agent: 'claude_code', employee, session_id: session, repository: '', branch: '', message: '', files: [], lines_added: 0, lines_removed: 0, source: 'tool_result', received_at: ms(0),
})
const edit = (path: string, agoMs: number, employee = 'a@acme.com') => ({
  workspace_id: WS, edited_at: ms(agoMs), edit_id: `e${n++}`, file_path: path, agent: 'claude_code', employee, session_id: 's1', tool_name: 'Edit', commit_id: '', lines_added: 1, lines_removed: 0,
})

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'viewer' } })
  await insertCodingAgentRows(h.store, {
    metrics: [
      // a@acme.com, session s1: cost metric 1.5 today; 2.0 three days ago; 4.0 twenty days ago.
      metric({ name: 'claude_code.cost.usage', agoMs: HOUR, delta: 1.5, employee: 'a@acme.com', session: 's1' }),
      metric({ name: 'claude_code.cost.usage', agoMs: 3 * DAY, delta: 2, employee: 'a@acme.com', session: 's1' }),
      metric({ name: 'claude_code.cost.usage', agoMs: 20 * DAY, delta: 4, employee: 'a@acme.com', session: 's1' }),
      metric({ name: 'claude_code.token.usage', agoMs: HOUR, delta: 100, employee: 'a@acme.com', session: 's1', type: 'input' }),
      metric({ name: 'claude_code.active_time.total', agoMs: HOUR, delta: 42.5, employee: 'a@acme.com', session: 's1' }),
    ],
    events: [
      // Same session's api_request: its cost is the metric's, not added again.
      event({ name: 'api_request', agoMs: HOUR, employee: 'a@acme.com', session: 's1', cost: 1.4, input: 90 }),
      // b@acme.com sends events only: their cost counts.
      event({ name: 'api_request', agoMs: 2 * HOUR, employee: 'b@acme.com', session: 's2', cost: 0.25, input: 10 }),
      event({ name: 'api_request', agoMs: 2 * HOUR, employee: 'b@acme.com', session: 's2', cost: 0.5, input: 20 }),
      event({ name: 'user_prompt', agoMs: 2 * HOUR, employee: 'b@acme.com', session: 's2' }),
    ],
    commits: [commit('aaa1', HOUR), commit('bbb2', 2 * HOUR, 'b@acme.com', 's2'), commit('ccc3', 3 * DAY), commit('aaa1', HOUR)],
    edits: [edit('src/a.ts', HOUR), edit('src/a.ts', 2 * HOUR, 'b@acme.com'), edit('src/b.ts', 3 * HOUR), edit('src/c.ts', 3 * DAY), edit('src/c.ts', 4 * DAY), edit('src/c.ts', 5 * DAY), edit('old.ts', 40 * DAY)],
  })
}, 60_000)
afterAll(() => h?.close())

const get = async (path: string) => {
  const res = await h.app.request(`/v1/observ/orgs/acme/workspaces/agents/coding-agent${path}`, { headers: { 'x-svc-api-key': KEY } })
  return { status: res.status, body: (await res.json()) as TestJson }
}

describe('GET /coding-agent/usage', () => {
  it('day (default): per employee, the cost metric wins over its session events; events count where there is no metric', async () => {
    const { status, body } = await get('/usage')
    expect(status).toBe(200)
    expect(body.period).toBe('day')
    expect(Date.parse(body.window.to) - Date.parse(body.window.from)).toBe(DAY)
    expect(body.employees.map((e: TestJson) => [e.employee, e.cost_usd, e.input_tokens, e.api_requests, e.prompts, e.sessions, e.commits, e.active_time_seconds])).toEqual([
      ['a@acme.com', 1.5, 100, 1, 0, 1, 1, 42.5],
      ['b@acme.com', 0.75, 30, 2, 1, 1, 1, 0],
    ])
    expect(body.employees[0].last_activity_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(body.totals).toMatchObject({ employees: 2, cost_usd: 2.25, input_tokens: 130, api_requests: 3, commits: 2, sessions: 2 })
  })

  it('week and month widen the window', async () => {
    expect((await get('/usage?period=week')).body.employees[0]).toMatchObject({ employee: 'a@acme.com', cost_usd: 3.5, commits: 2 })
    expect((await get('/usage?period=month')).body.employees[0]).toMatchObject({ employee: 'a@acme.com', cost_usd: 7.5 })
  })

  it('400 with detail for an unknown period', async () => {
    const { status, body } = await get('/usage?period=year')
    expect(status).toBe(400)
    expect(body).toMatchObject({ error: 'bad_request', detail: { issues: [{ parameter: 'period' }] } })
  })
})

describe('GET /coding-agent/commits', () => {
  it('newest first, one row per commit, limit 50 by default', async () => {
    const { status, body } = await get('/commits')
    expect(status).toBe(200)
    expect(body.limit).toBe(50)
    expect(body.commits.map((c: TestJson) => c.commit_id)).toEqual(['aaa1', 'bbb2', 'ccc3'])
    expect(body.commits[0]).toMatchObject({ agent: 'claude_code', employee: 'a@acme.com', session_id: 's1', repository: null, files: [], source: 'tool_result' })
    expect((await get('/commits?limit=2')).body.commits.map((c: TestJson) => c.commit_id)).toEqual(['aaa1', 'bbb2'])
  })

  it('400 with detail for a bad limit', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=1.5']) {
      const { status, body } = await get(`/commits?${q}`)
      expect(status, q).toBe(400)
      expect(body.detail.issues[0].parameter).toBe('limit')
    }
  })
})

describe('GET /coding-agent/top-files', () => {
  it('week (default): files by edits, then the most recent', async () => {
    const { status, body } = await get('/top-files')
    expect(status).toBe(200)
    expect(body).toMatchObject({ period: 'week', limit: 50 })
    expect(body.files.map((f: TestJson) => [f.file_path, f.edits, f.employees, f.lines_added])).toEqual([
      ['src/c.ts', 3, 1, 3],
      ['src/a.ts', 2, 2, 2],
      ['src/b.ts', 1, 1, 1],
    ])
  })

  it('day narrows, month widens, limit cuts', async () => {
    expect((await get('/top-files?period=day')).body.files.map((f: TestJson) => f.file_path)).toEqual(['src/a.ts', 'src/b.ts'])
    expect((await get('/top-files?period=month')).body.files.map((f: TestJson) => f.file_path)).toEqual(['src/c.ts', 'src/a.ts', 'src/b.ts'])
    expect((await get('/top-files?period=month&limit=1')).body.files.map((f: TestJson) => f.file_path)).toEqual(['src/c.ts'])
  })

  it('400 with detail naming each bad parameter', async () => {
    const { status, body } = await get('/top-files?period=hour&limit=-1')
    expect(status).toBe(400)
    expect(body.detail.issues.map((i: TestJson) => i.parameter).sort()).toEqual(['limit', 'period'])
  })
})
