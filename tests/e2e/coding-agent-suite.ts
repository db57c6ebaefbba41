/**
 * Coding-agent telemetry end to end on a running stack, in either bus mode: the
 * recorded-style Claude Code, Codex CLI and activity fixtures
 * (tests/fixtures/coding-agent) sent to the four ingest endpoints as their
 * exporters would, consumed by the coding-agent service, and served by the three
 * analytics endpoints with exact figures. Then the stack restarts on the same
 * data and an exporter retries an already-counted cumulative export: nothing
 * changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs'
import { EXPECTED_COMMITS, expectedTopFiles, expectedUsage, replayRequests, T0_MS } from '../fixtures/coding-agent/replay.js'
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import { eventually, startTestStack, TEST_KEY, type BusMode } from '../support/stack.js'
import type { TestJson } from '@svc/shared/test-support/json'

type Stack = Awaited<ReturnType<typeof startTestStack>>
const CA_PATH = '/v1/observ/orgs/acme/workspaces/agents/coding-agent'

export function codingAgentSuite(mode: BusMode) {
  describe(`coding-agent telemetry (${mode} bus)`, () => {
    let s: Stack
    const now = Date.now()
    const { shiftMs, requests } = replayRequests(now)
    const at = (offsetS: number) => new Date(T0_MS + shiftMs + offsetS * 1000).toISOString()
    const ingest = (kind: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY }) =>
      fetch(`${s.ingestUrl}/v1/otlp/coding-agent/v1/${kind}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers })
    const get = async (path: string) => {
      const res = await fetch(s.apiUrl + CA_PATH + path, { headers: { 'x-svc-api-key': TEST_KEY } })
      return { status: res.status, body: (await res.json()) as TestJson }
    }
    const withoutLast = (rows: TestJson[]) => rows.map(({ last_activity_at, ...r }) => r)
    /** Every figure of the three endpoints, exactly. */
    const checkFigures = async () => {
      for (const period of ['day', 'week'] as const) {
        const usage = await get(`/usage?period=${period}`)
        expect(usage.status).toBe(200)
        const expected = expectedUsage(period)
        expect(withoutLast(usage.body.employees), `usage ${period}`).toEqual(expected.employees)
        expect(usage.body.totals, `usage totals ${period}`).toEqual(expected.totals)
        const files = await get(`/top-files?period=${period}`)
        expect(files.status).toBe(200)
        expect(files.body.files, `top-files ${period}`).toEqual(expectedTopFiles(period).map(({ offsetS, ...f }) => ({ ...f, last_edited_at: at(offsetS) })))
      }
      const commits = await get('/commits')
      expect(commits.status).toBe(200)
      expect(commits.body).toEqual({ limit: 50, commits: EXPECTED_COMMITS.map(({ offsetS, ...c }) => ({ ...c, committed_at: at(offsetS) })) })
    }
    /** Waits until the consumer has landed everything (the figures stop being partial), then checks them exactly. */
    const settled = async () => {
      await eventually(async () => {
        const [u, c, f] = await Promise.all([get('/usage?period=week'), get('/commits'), get('/top-files?period=week')])
        const week = expectedUsage('week')
        return u.body.totals?.cost_usd === week.totals.cost_usd && u.body.totals?.tool_calls === week.totals.tool_calls && u.body.totals?.input_tokens === week.totals.input_tokens && c.body.commits?.length === 3 && f.body.files?.length === 5 ? true : undefined
      }, 30_000, 200)
      await checkFigures()
    }

    beforeAll(async () => {
      s = await startTestStack(mode)
    })
    afterAll(async () => {
      await s?.close()
    })

    it('the ingest rules: 401 without a valid key, 415 for protobuf, 400 when malformed', async () => {
      for (const kind of ['traces', 'metrics', 'logs', 'activity']) {
        expect((await ingest(kind, {}, { 'content-type': 'application/json' })).status, kind).toBe(401)
        expect((await ingest(kind, {}, { 'content-type': 'application/json', 'x-svc-api-key': 'dr_' + 'z'.repeat(40) })).status, kind).toBe(401)
        expect((await ingest(kind, 'x', { 'content-type': 'application/x-protobuf', 'x-svc-api-key': TEST_KEY })).status, kind).toBe(415)
        expect((await ingest(kind, '{"resourceSpans":1', { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` })).status, kind).toBe(400)
      }
    })

    it('replays recorded Claude Code, Codex and activity telemetry: usage, commits and top files are exact', async () => {
      for (const r of requests) {
        const res = await ingest(r.path, r.body)
        expect(res.status, r.fixture).toBe(202)
        expect(JSON.stringify(await res.json()), r.fixture).not.toContain('partialSuccess')
      }
      await settled()
      expect((await get('/commits?limit=2')).body.commits.map((c: TestJson) => c.commit_id)).toEqual(['c0ffee12', 'deadbeef1'])
      expect((await get('/top-files?period=day&limit=1')).body.files.map((f: TestJson) => f.file_path)).toEqual(['src/app.ts'])
      expect((await get('/usage?period=year')).status).toBe(400)
    })

    it('coding-agent traces are ordinary traces', async () => {
      const traceId = 'c0de'.repeat(8)
      const start = BigInt(Date.now() - 1000) * 1_000_000n
      const res = await ingest('traces', [{ trace_id: traceId, span_id: 'c0de'.repeat(4), name: 'claude_code.session', start_time_unix_ns: String(start), end_time_unix_ns: String(start + 5_000_000n), status_code: 'OK', attributes: {} }])
      expect(res.status).toBe(202)
      await eventually(async () => {
        const r = await fetch(`${s.apiUrl}/v1/observ/orgs/acme/workspaces/agents/traces/${traceId}`, { headers: { 'x-svc-api-key': TEST_KEY } })
        return r.status === 200 ? true : undefined
      }, 20_000, 200)
    })

    it('after a restart on the same data, a retried cumulative export counts nothing again', async () => {
      const env = s.env
      await s.close()
      s = await startTestStack(mode, env)
      const retry = requests.find((r) => r.fixture === 'claude-code-cumulative-metrics.json#1')!
      expect((await ingest('metrics', retry.body)).status).toBe(202)
      // Consumed once the group's committed offsets reach the end of the metrics topic (offsets commit after the rows are stored).
      await eventually(async () => {
        const [end, committed] = await Promise.all([s.bus.endOffsets(TOPICS.codingAgentMetrics), s.bus.committedOffsets(GROUPS.codingAgent, TOPICS.codingAgentMetrics)])
        return [...end].every(([p, o]) => o === '0' || committed.get(p) === o) ? true : undefined
      }, 30_000, 200)
      const ann = (await get('/usage?period=day')).body.employees[0]
      const { last_activity_at, ...figures } = ann
      expect(figures).toEqual(expectedUsage('day').employees[0])
      await checkFigures()
    })

    // Last: its commit changes the figures the tests above state exactly.
    it('an OpenTelemetry logs exporter pointed at the activity endpoint: each log record lands as an activity record', async () => {
      const exporter = new OTLPLogExporter({ url: `${s.ingestUrl}/v1/otlp/coding-agent/v1/activity`, headers: { 'x-svc-api-key': TEST_KEY } })
      const provider = new LoggerProvider({ resource: resourceFromAttributes({ 'service.name': 'git-hook', 'user.email': 'otel@acme.com' }), processors: [new SimpleLogRecordProcessor(exporter)] })
      const when = new Date(Date.now() - 60_000)
      provider.getLogger('activity').emit({
        eventName: 'commit',
        timestamp: when,
        attributes: { commit_sha: 'feedf00d', repository: 'acme/web', branch: 'main', message: 'Ship it', 'session.id': 'otel-s1', files: [{ path: 'web/index.ts', lines_added: 5, lines_removed: 2 }] as never },
      })
      await provider.forceFlush()
      await provider.shutdown()
      const commit = await eventually(async () => (await get('/commits')).body.commits?.find((c: TestJson) => c.commit_id === 'feedf00d'), 30_000, 200)
      expect(commit).toEqual({
        commit_id: 'feedf00d', committed_at: when.toISOString(), agent: 'git-hook', employee: 'otel@acme.com', session_id: 'otel-s1', repository: 'acme/web', branch: 'main',
        message: 'Ship it', files: ['web/index.ts'], lines_added: 5, lines_removed: 2, source: 'activity',
      })
      // The commit's files are rows of their own table, stored by an insert of their own, so they may show a moment after the commit.
      const file = await eventually(async () => (await get('/top-files?period=day')).body.files?.find((f: TestJson) => f.file_path === 'web/index.ts'), 30_000, 200)
      expect(file).toMatchObject({ edits: 1, commits: 1, lines_added: 5, lines_removed: 2 })
    })
  })
}
