/**
 * Retention reaches everything a trace left behind, end to end on a running stack
 * (embedded bus): a workspace holds traces started three days ago and a minute ago,
 * analysed by every engine (scores, engine results, alignment flags per end user,
 * completions) plus dead letters; its retention is shortened to 24 hours with the
 * preview's token. From then on no read endpoint serves anything of the old
 * traces, and after the sweep no table holds a row of them. Another workspace
 * keeping the default window loses nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROUTES } from '@svc/api/access'
import { retentionSweeper } from '@svc/assembler/retention-sweeper'
import { TRACE_ENGINES } from '@svc/shared/bus/topics'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { createLogger } from '@svc/shared/log'
import { docState } from '@svc/shared/store/queries/alignment'
import { loadFixture } from '@svc/engines/test-support/fixtures'
import { eventually, startTestStack, TEST_KEY, TEST_PASSWORD } from '../support/stack.js'
import { hex } from '../support/traces.js'

type Stack = Awaited<ReturnType<typeof startTestStack>>
const HOUR = 3_600_000
const ORG_PATH = '/v1/observ/orgs/acme'
const OLD_AGE_MS = 72 * HOUR
const NEW_AGE_MS = 60_000
const POLICY_DOC = `# Health information policy

## Dosage and treatment

The assistant must never recommend a specific dose, dosage or dosing schedule of any medication, including over-the-counter medicines.`
// What only the old traces carry: their final answers and their end user.
const OLD_OUTPUT = 'For a headache you can take 400 mg of ibuprofen every six hours.'
const NEW_OUTPUT = 'For a migraine you can take 500 mg of paracetamol every four hours.'
const OLD_USER = 'old-user-7c1e'
const NEW_USER = 'new-user-2b9d'
const OLD_DEAD_LETTER = 'old-dead-letter-5f0a'
/** The knowledge base only the old traces cite (a source of the list: its domain). */
const OLD_SOURCE = 'oldkb5e1a'

interface Body {
  route: string
  /** The trace a trace endpoint was asked for; '' for the others. */
  trace: string
  status: number
  text: string
}

interface Ws {
  id: string
  slug: string
  key: string
  old: string[]
  fresh: string[]
}

describe('retention reaches every table and endpoint (embedded bus)', () => {
  let s: Stack
  let owner: Record<string, string>
  const main: Ws = { id: '', slug: 'agents', key: TEST_KEY, old: [], fresh: [] }
  const other: Ws = { id: '', slug: 'keeps-all', key: '', old: [], fresh: [] }
  const wsPath = (w: Ws) => `${ORG_PATH}/workspaces/${w.slug}`
  const call = (w: Ws, path: string, init: RequestInit = {}) =>
    fetch(s.apiUrl + path, { ...init, headers: { 'x-svc-api-key': w.key, 'content-type': 'application/json', ...(init.headers ?? {}) } })

  /** The refund fixture (claims, sources in knowledge base `kb`, decisions) and a dosage answer for alignment, both started `ageMs` ago. */
  const sendTraces = async (w: Ws, ageMs: number, output: string, endUser: string, kb: string) => {
    const fixture = JSON.stringify(loadFixture('rag-refund-policy-supported.json').spans).replaceAll('kb/', `${kb}/`)
    const rag = JSON.parse(fixture) as Array<Record<string, unknown>>
    const ragId = hex(16)
    const first = rag.reduce((m, x) => (BigInt(String(x.start_time_unix_ns)) < m ? BigInt(String(x.start_time_unix_ns)) : m), BigInt(String(rag[0]!.start_time_unix_ns)))
    const shift = BigInt(Date.now() - ageMs) * 1_000_000n - first
    const moved = (x: Record<string, unknown>) => ({ ...x, trace_id: ragId, start_time_unix_ns: (BigInt(String(x.start_time_unix_ns)) + shift).toString(), end_time_unix_ns: (BigInt(String(x.end_time_unix_ns)) + shift).toString() })
    const alignId = hex(16)
    const t0 = BigInt(Date.now() - ageMs) * 1_000_000n
    const root = hex(8)
    const align = [
      { trace_id: alignId, span_id: root, name: 'invoke_agent pharmacy-bot', start_time_unix_ns: t0.toString(), end_time_unix_ns: (t0 + 900_000_000n).toString(), status_code: 'OK', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'svc.end_user': endUser } },
      {
        trace_id: alignId, span_id: hex(8), parent_span_id: root, name: 'chat gpt-4o-mini', start_time_unix_ns: (t0 + 100_000_000n).toString(), end_time_unix_ns: (t0 + 800_000_000n).toString(), status_code: 'ERROR',
        attributes: {
          'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': '50', 'gen_ai.usage.output_tokens': '30',
          'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'I have a headache, what should I do?', 'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': output,
        },
      },
    ]
    const res = await fetch(s.ingestUrl + '/v1/traces', { method: 'POST', body: JSON.stringify([...rag.map(moved), ...align]), headers: { 'content-type': 'application/json', 'x-svc-api-key': w.key } })
    expect(res.status).toBe(202)
    return [ragId, alignId]
  }

  const rows = <T>(sql: string, params: Record<string, unknown>) => s.store.query<T>(sql, params)
  /** Tables that carry a workspace_id (views and the migration log left out), with their columns. */
  const workspaceTables = async () => {
    const cols = await rows<{ table: string; name: string }>(
      `SELECT table, name FROM system.columns WHERE database = currentDatabase() AND table IN (SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree')`,
      {},
    )
    const by = new Map<string, Set<string>>()
    for (const c of cols) by.set(c.table, (by.get(c.table) ?? new Set()).add(c.name))
    return [...by].filter(([, c]) => c.has('workspace_id')).map(([table, c]) => ({ table, traceKeyed: c.has('trace_id') }))
  }
  /** Rows per table of these traces in the workspace. */
  const traceRows = async (w: Ws, traces: string[]) => {
    const out: Record<string, number> = {}
    for (const t of await workspaceTables())
      if (t.traceKeyed) out[t.table] = Number((await rows<{ n: string }>(`SELECT count() AS n FROM ${t.table} WHERE toString(workspace_id) = {ws:String} AND trace_id IN {ids:Array(String)}`, { ws: w.id, ids: traces }))[0]!.n)
    return out
  }
  /** Rows of the workspace in a table that belong to these traces or carry one of the markers anywhere in them. */
  const rowsCarrying = async (w: Ws, t: { table: string; traceKeyed: boolean }, traces: string[], markers: string[]) =>
    Number(
      (
        await rows<{ n: string }>(
          `SELECT count() AS n FROM (SELECT *, formatRowNoNewline('JSONEachRow', *) AS _row FROM ${t.table} WHERE toString(workspace_id) = {ws:String})
WHERE ${t.traceKeyed ? 'trace_id IN {ids:Array(String)} OR ' : ''}multiSearchAny(_row, {markers:Array(String)})`,
          { ws: w.id, ids: traces, markers },
        )
      )[0]!.n,
    )

  beforeAll(async () => {
    s = await startTestStack('embedded', { SVC_ENGINE_RETRY_BASE_MS: '20' })
    const login = await fetch(`${s.apiUrl}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: TEST_PASSWORD }) })
    owner = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}`, 'content-type': 'application/json' }
    const made = await fetch(`${s.apiUrl}${ORG_PATH}/workspaces`, { method: 'POST', headers: owner, body: JSON.stringify({ name: 'Keeps all', slug: other.slug }) })
    expect(made.status).toBe(201)
    const key = await fetch(`${s.apiUrl}${wsPath(other)}/api-keys`, { method: 'POST', headers: owner, body: JSON.stringify({ name: 'ingest', role: 'admin' }) })
    other.key = ((await key.json()) as { key: string }).key
    for (const w of [main, other]) w.id = [...s.control.state.workspaces.values()].find((x) => x.slug === w.slug)!.id

    // Every engine, with the text, and an alignment policy backed by an embedded document, in both workspaces.
    for (const w of [main, other]) {
      expect((await call(w, `${wsPath(w)}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: true }) })).status).toBe(200)
      expect((await call(w, `${wsPath(w)}/engine-settings`, { method: 'PUT', body: JSON.stringify({ engines: Object.fromEntries(TRACE_ENGINES.map((e) => [e, true])) }) })).status).toBe(200)
      expect((await call(w, `${wsPath(w)}/alignment/policy`, { method: 'PUT', body: JSON.stringify({ enabled: true, description: 'Pharmacy assistant.' }) })).status).toBe(200)
      const form = new FormData()
      form.append('file', new File([POLICY_DOC], 'dosage.md', { type: 'text/markdown' }))
      const up = await fetch(`${s.apiUrl}${wsPath(w)}/alignment/docs`, { method: 'POST', body: form, headers: { 'x-svc-api-key': w.key } })
      expect(up.status).toBe(202)
      const docId = ((await up.json()) as { doc_id: string }).doc_id
      await eventually(async () => (await docState(s.store, w.id, docId))?.status === 'embedded', 30_000, 100)
    }

    for (const w of [main, other]) {
      w.old = await sendTraces(w, OLD_AGE_MS, OLD_OUTPUT, OLD_USER, OLD_SOURCE)
      w.fresh = await sendTraces(w, NEW_AGE_MS, NEW_OUTPUT, NEW_USER, 'kb')
      await s.store.insert('dead_letters_v1', [
        { org_id: s.control.state.workspaces.get(w.id)!.org_id, workspace_id: w.id, source: 'ingest.otlp', reason: 'test', payload: JSON.stringify({ note: OLD_DEAD_LETTER }), received_at: String(Date.now() - OLD_AGE_MS), dlq_topic: 'spans.raw.v1.dlq', dlq_partition: 0, dlq_offset: 1 },
      ])
    }
    // Every engine has analysed every trace, the scores and flags have landed.
    const all = [...main.old, ...main.fresh, ...other.old, ...other.fresh]
    const dosage = [main.old[1], main.fresh[1], other.old[1], other.fresh[1]]
    await eventually(async () => {
      const [r] = await rows<{ n: string; flagged: string; scored: string }>(
        `SELECT (SELECT count() FROM (SELECT trace_id FROM engine_results_v1 WHERE trace_id IN {ids:Array(String)} GROUP BY trace_id HAVING uniqExact(engine) = {engines:UInt32})) AS n,
    (SELECT uniqExact(trace_id) FROM alignment_flags_v1 WHERE trace_id IN {dosage:Array(String)}) AS flagged,
    (SELECT uniqExact(trace_id) FROM trace_scores_v1 WHERE trace_id IN {ids:Array(String)}) AS scored`,
        { ids: all, dosage, engines: TRACE_ENGINES.length },
      )
      return Number(r!.n) === all.length && Number(r!.flagged) === 4 && Number(r!.scored) === all.length ? true : undefined
    }, 90_000, 250)
  }, 180_000)
  afterAll(async () => {
    await s?.close()
  })

  /** Every GET endpoint of a workspace (the access table's, so a new one is walked too), the trace ones for each given trace. */
  const readEverything = async (w: Ws, traces: string[]) => {
    const query: Partial<Record<keyof typeof ROUTES, string[]>> = {
      listTraces: ['?include_empty=true&page_size=500'],
      usageLatencyPhaseTraces: ['?phase=llm&metric=errors&period=week', '?phase=agent&metric=slow&percentile=p95&period=week'],
      listAlignmentFlags: ['?include_unclear=true&limit=500'],
      driftHistory: ['?days=30'],
      usageSummary: ['?period=month'],
    }
    const bodies: Body[] = []
    for (const [name, r] of Object.entries(ROUTES) as Array<[keyof typeof ROUTES, (typeof ROUTES)[keyof typeof ROUTES]]>) {
      if (r.method !== 'GET' || r.scope !== 'workspace-slug') continue
      const ids = r.path.includes(':trace_id') ? traces : ['']
      for (const trace of ids)
        for (const q of query[name] ?? ['']) {
          const path = r.path.replace(':org', 'acme').replace(':ws', w.slug).replace(':trace_id', trace)
          const res = await call(w, path + q)
          bodies.push({ route: `${name} ${trace}${q}`, trace, status: res.status, text: await res.text() })
        }
    }
    return bodies
  }
  /** Nothing of the old traces in any body: no trace or span id, no text, no end user. */
  const expectNothingOld = (bodies: Body[], w: Ws) => {
    const markers = [...w.old, OLD_OUTPUT, OLD_USER, OLD_DEAD_LETTER, OLD_SOURCE]
    // A 404 names the trace it was asked for; that is all it says of it.
    for (const b of bodies) for (const m of markers) if (!(b.status === 404 && m === b.trace)) expect.soft(b.text.includes(m), `${b.route} (${b.status}) serves ${m}: ${b.text.slice(0, 300)}`).toBe(false)
  }

  it('serves nothing of a trace older than a shortened window, from any endpoint, before and after the sweep; deletes every row of it; another workspace keeps its data', async () => {
    // Before: the old traces are served like the new ones.
    for (const t of [...main.old, ...main.fresh]) expect((await call(main, `${wsPath(main)}/traces/${t}`)).status).toBe(200)
    expect(((await (await call(main, `${wsPath(main)}/alignment/by-user`)).json()) as { users: Array<{ end_user: string }> }).users.map((u) => u.end_user).sort()).toEqual([NEW_USER, OLD_USER])
    expect(((await (await call(main, `${wsPath(main)}/sources`)).json()) as { sources: Array<{ domain: string }> }).sources.map((x) => x.domain)).toContain(OLD_SOURCE)
    const otherBefore = await traceRows(other, other.old)

    const preview = await (await call(main, `${wsPath(main)}/retention:preview`, { method: 'POST', body: JSON.stringify({ hours: 24 }) })).json() as { confirm_token: string; traces_affected: number }
    expect(preview.traces_affected).toBe(2)
    const put = await call(main, `${wsPath(main)}/retention`, { method: 'PUT', body: JSON.stringify({ enabled: true, hours: 24, confirm_token: preview.confirm_token }) })
    expect(put.status).toBe(200)

    // Reads apply the window at once.
    const before = await readEverything(main, [...main.old, ...main.fresh])
    expectNothingOld(before, main)
    for (const b of before) expect(b.status, b.route).toBe(main.old.includes(b.trace) ? 404 : 200)
    // The new traces are still all there.
    const byUser = JSON.parse(before.find((b) => b.route.startsWith('alignmentByUser'))!.text) as { users: Array<{ end_user: string }> }
    expect.soft(byUser.users.map((u) => u.end_user)).toEqual([NEW_USER])
    const flags = JSON.parse(before.find((b) => b.route.startsWith('listAlignmentFlags'))!.text) as { flags: Array<{ trace_id: string }> }
    expect(flags.flags.map((f) => f.trace_id)).toContain(main.fresh[1])
    const phase = JSON.parse(before.find((b) => b.route.includes('metric=errors'))!.text) as { traces: Array<{ trace_id: string }> }
    expect.soft(phase.traces.map((t) => t.trace_id)).toEqual([main.fresh[1]])

    const swept = await retentionSweeper({ store: s.store, state: s.control.state, cache: createMemoryCache(), defaultHours: 720, log: createLogger({ level: 'silent' }) }).sweepOnce()
    expect(swept?.map((r) => r.workspace_id)).toEqual([main.id])

    // After the sweep: no row of the old traces in any table, nothing older than the cutoff
    // that carries their text (dead letters included), and the reads still serve none of it.
    const cutoffMs = Date.now() - 25 * HOUR
    const markers = [...main.old, OLD_OUTPUT, OLD_USER, OLD_DEAD_LETTER, OLD_SOURCE]
    for (const t of await workspaceTables()) expect.soft(await rowsCarrying(main, t, main.old, markers), `${t.table} keeps data of the expired traces`).toBe(0)
    expect(Number((await rows<{ n: string }>('SELECT count() AS n FROM dead_letters_v1 WHERE workspace_id = {ws:String} AND received_at < fromUnixTimestamp64Milli({c:Int64})', { ws: main.id, c: cutoffMs }))[0]!.n)).toBe(0)
    expectNothingOld(await readEverything(main, [...main.old, ...main.fresh]), main)
    for (const t of main.fresh) expect((await call(main, `${wsPath(main)}/traces/${t}`)).status).toBe(200)
    expect(await traceRows(main, main.fresh)).toMatchObject(Object.fromEntries(['spans_v1', 'traces_v1', 'engine_results_v1', 'trace_scores_v1', 'alignment_flags_v1', 'trace_completions_v1'].map((t) => [t, expect.any(Number)])))
    // Flags exist only for the dosage traces; skips only for traces outside an engine's sample (none here: every engine analyses every trace).
    for (const [table, n] of Object.entries(await traceRows(main, main.fresh))) if (table !== 'alignment_flags_v1' && table !== 'engine_skips_v1') expect(n, table).toBeGreaterThan(0)

    // The other workspace (default window, 30 days) lost nothing.
    const otherAfter = await traceRows(other, other.old)
    for (const [table, n] of Object.entries(otherBefore)) expect(otherAfter[table], table).toBeGreaterThanOrEqual(n)
    expect(await rowsCarrying(other, { table: 'alignment_flags_v1', traceKeyed: true }, [], [OLD_OUTPUT])).toBeGreaterThan(0)
    expect(otherBefore.spans_v1).toBeGreaterThan(0)
    for (const t of other.old) expect((await call(other, `${wsPath(other)}/traces/${t}`)).status).toBe(200)
    expect(Number((await rows<{ n: string }>('SELECT count() AS n FROM dead_letters_v1 WHERE workspace_id = {ws:String}', { ws: other.id }))[0]!.n)).toBe(1)
  })
})
