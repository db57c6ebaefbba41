import { describe, expect, it } from 'vitest'
import type { CodingAgentEventRecord, CodingAgentMetricRecord } from '@svc/shared/bus/records'
import { mapEvent, metricPoint, patchFiles, seriesIdOf, toDelta, withDeltas } from './map.js'

const point = (o: Partial<CodingAgentMetricRecord>): CodingAgentMetricRecord => ({
  org_id: 'o', workspace_id: 'w', metric_name: 'claude_code.cost.usage', metric_type: 'sum', temporality: 'cumulative', is_monotonic: true, unit: 'USD',
  start_time_unix_nano: 100n, time_unix_nano: 200n, value: 1, count: 0, service_name: 'claude-code', attributes: { 'user.email': 'a@x', 'session.id': 's' }, received_at_ms: 1, ...o,
})
const deltas = (points: CodingAgentMetricRecord[], stored = new Map()) => withDeltas(points.map((p) => ({ row: metricPoint(p), monotonic: p.is_monotonic })), stored).map((r) => [r.time_ns, r.delta, r.count_delta])

describe('temporality conversion', () => {
  it('delta points add their value; gauges add nothing', () => {
    expect(toDelta({ metric_type: 'sum', temporality: 'delta', value: 5, count: 0 }, { value: 100, count: 0 })).toEqual({ delta: 5, count_delta: 0 })
    expect(toDelta({ metric_type: 'gauge', temporality: 'none', value: 7, count: 0 }, undefined)).toEqual({ delta: 0, count_delta: 0 })
    expect(toDelta({ metric_type: 'histogram', temporality: 'delta', value: 10.5, count: 4 }, undefined)).toEqual({ delta: 10.5, count_delta: 4 })
  })

  it('cumulative: the first point adds its whole value, later ones their increase; float differences are exact to 1e-9', () => {
    expect(deltas([point({ time_unix_nano: 300n, value: 0.3 }), point({ time_unix_nano: 200n, value: 0.1 }), point({ time_unix_nano: 400n, value: 0.3 })])).toEqual([
      ['200', 0.1, 0],
      ['300', 0.2, 0],
      ['400', 0, 0],
    ])
  })

  it('continues from the stored previous point, so a restart does not count the series again', () => {
    const id = seriesIdOf(point({}))
    expect(deltas([point({ time_unix_nano: 500n, value: 4 })], new Map([[id, { value: 3, count: 0 }]]))).toEqual([['500', 1, 0]])
  })

  it('a drop of a monotonic sum is a reset: the new value is what it adds; a new start time is a new series', () => {
    expect(deltas([point({ time_unix_nano: 200n, value: 10 }), point({ time_unix_nano: 300n, value: 4 }), point({ time_unix_nano: 400n, value: 6 })])).toEqual([
      ['200', 10, 0],
      ['300', 4, 0],
      ['400', 2, 0],
    ])
    const a = point({ start_time_unix_nano: 100n, time_unix_nano: 200n, value: 10 })
    const b = point({ start_time_unix_nano: 250n, time_unix_nano: 300n, value: 3 })
    expect(seriesIdOf(a)).not.toBe(seriesIdOf(b))
    expect(deltas([a, b])).toEqual([
      ['200', 10, 0],
      ['300', 3, 0],
    ])
  })

  it('a non-monotonic cumulative sum adds its change, negative too', () => {
    expect(deltas([point({ is_monotonic: false, time_unix_nano: 200n, value: 10 }), point({ is_monotonic: false, time_unix_nano: 300n, value: 4 })])).toEqual([
      ['200', 10, 0],
      ['300', -6, 0],
    ])
  })

  it('cumulative histograms convert count and sum; a count drop is a reset', () => {
    const h = (t: bigint, count: number, sum: number) => point({ metric_type: 'histogram', time_unix_nano: t, count, value: sum })
    expect(deltas([h(200n, 2, 10), h(300n, 5, 16), h(400n, 1, 3)])).toEqual([
      ['200', 10, 2],
      ['300', 6, 3],
      ['400', 3, 1],
    ])
  })

  it('a repeated point (exporter retry) gets the delta of its first copy', () => {
    expect(deltas([point({ time_unix_nano: 200n, value: 1 }), point({ time_unix_nano: 300n, value: 3 }), point({ time_unix_nano: 300n, value: 3 })])).toEqual([
      ['200', 1, 0],
      ['300', 2, 0],
      ['300', 2, 0],
    ])
  })

  it('the row: employee from user.email, else the account id; session, model and type', () => {
    const r = metricPoint(point({ attributes: { 'user.account_uuid': 'u-1', 'session.id': 's', model: 'm', type: 'input' } }))
    expect(r).toMatchObject({ employee: 'u-1', session_id: 's', model: 'm', type: 'input', agent: 'claude_code', time_ns: '200', start_ns: '100' })
  })
})

const event = (o: Partial<CodingAgentEventRecord>): CodingAgentEventRecord => ({
  org_id: 'o', workspace_id: 'w', source: 'otlp.logs', event_name: 'api_request', time_unix_nano: 1_700_000_000_123_000_000n, severity_text: '', body: 'claude_code.api_request', service_name: 'claude-code', attributes: {}, received_at_ms: 5, ...o,
})

describe('mapEvent', () => {
  it('Claude Code api_request: cost and tokens (input excludes cache)', () => {
    const m = mapEvent(event({ attributes: { 'user.email': 'a@x', 'session.id': 's', model: 'claude-sonnet-5', cost_usd: '0.1068663', input_tokens: '3', output_tokens: '5', cache_read_tokens: '17241', cache_creation_tokens: '16935', duration_ms: '2493' } }))
    expect(m.event).toMatchObject({ event_name: 'api_request', agent: 'claude_code', employee: 'a@x', session_id: 's', cost_usd: 0.1068663, input_tokens: 3, output_tokens: 5, cache_read_tokens: 17241, cache_creation_tokens: 16935, duration_ms: 2493, event_time: '1700000000123' })
    expect(m.commits).toEqual([])
    expect(mapEvent(event({ attributes: { cost_usd: '1' } })).event.event_id).toBe(mapEvent(event({ attributes: { cost_usd: '1' } })).event.event_id)
  })

  it('tool_result: a git_commit_id is a commit; Edit/Write/MultiEdit/NotebookEdit file paths are edits; failures are neither', () => {
    const commit = mapEvent(event({ event_name: 'tool_result', attributes: { tool_name: 'Bash', success: 'true', tool_parameters: '{"bash_command":"git","full_command":"git commit -m fix","git_commit_id":"A1B2C3D"}' } }))
    expect(commit.commits).toMatchObject([{ commit_id: 'a1b2c3d', committed_at: '1700000000123', source: 'tool_result', employee: '' }])
    for (const tool of ['Edit', 'Write', 'MultiEdit']) expect(mapEvent(event({ event_name: 'tool_result', attributes: { tool_name: tool, tool_parameters: '{"file_path":"src/a.ts"}' } })).edits).toMatchObject([{ file_path: 'src/a.ts', tool_name: tool }])
    expect(mapEvent(event({ event_name: 'tool_result', attributes: { tool_name: 'NotebookEdit', tool_parameters: '{"notebook_path":"n.ipynb"}' } })).edits[0]!.file_path).toBe('n.ipynb')
    expect(mapEvent(event({ event_name: 'tool_result', attributes: { tool_name: 'Edit', success: 'false', tool_parameters: '{"file_path":"src/a.ts"}' } })).edits).toEqual([])
    expect(mapEvent(event({ event_name: 'tool_decision', attributes: { tool_name: 'Edit', decision: 'accept' } }))).toMatchObject({ edits: [], event: { decision: 'accept', event_name: 'tool_decision' } })
  })

  it('Codex: conversation.id is the session, a completed response carries tokens (cached apart), apply_patch edits files', () => {
    const base = { 'conversation.id': 'c1', 'user.email': 'carl@x', 'user.account_id': 'acct' }
    const resp = mapEvent(event({ event_name: 'codex.sse_event', service_name: 'codex_cli_rs', attributes: { ...base, 'event.kind': 'response.completed', input_token_count: '1200', cached_token_count: '200', output_token_count: '300' } }))
    expect(resp.event).toMatchObject({ agent: 'codex', event_name: 'model_response', session_id: 'c1', employee: 'carl@x', input_tokens: 1000, cache_read_tokens: 200, output_tokens: 300 })
    const patch = '*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n+z\n*** Delete File: b.ts\n*** End Patch'
    const edits = mapEvent(event({ event_name: 'codex.tool_result', service_name: 'codex_cli_rs', attributes: { ...base, tool_name: 'apply_patch', arguments: JSON.stringify({ input: patch }) } })).edits
    expect(edits.map((e) => [e.file_path, e.lines_added, e.lines_removed])).toEqual([
      ['a.ts', 2, 1],
      ['b.ts', 0, 0],
    ])
    expect(patchFiles('no patch')).toEqual([])
  })

  it('activity records: commit with files (commit row and one edit per file), file_edit with lines', () => {
    const c = mapEvent(event({ source: 'activity', event_name: 'activity.commit', service_name: 'aider', attributes: { agent: 'aider', commit_sha: 'C0FFEE', message: 'm', files: '[{"path":"a","lines_added":2,"lines_removed":1},{"path":"b","lines_added":1,"lines_removed":0}]' } }))
    expect(c.commits).toMatchObject([{ commit_id: 'c0ffee', agent: 'aider', files: ['a', 'b'], lines_added: 3, lines_removed: 1, source: 'activity', message: 'm' }])
    expect(c.edits.map((e) => [e.file_path, e.commit_id])).toEqual([
      ['a', 'c0ffee'],
      ['b', 'c0ffee'],
    ])
    const f = mapEvent(event({ source: 'activity', event_name: 'activity.file_edit', attributes: { file_path: 'x', lines_added: '4', lines_removed: '2' } }))
    expect(f.event).toMatchObject({ event_name: 'file_edit', lines_added: 4, lines_removed: 2, agent: 'activity' })
    expect(f.edits).toMatchObject([{ file_path: 'x', lines_added: 4, lines_removed: 2, tool_name: 'file_edit' }])
  })
})
