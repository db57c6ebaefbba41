import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { decodeActivityRequest, decodeLogsRequest, stripEventText } from './logs.js'

const opts = { tenant: { org_id: 'o', workspace_id: 'w' }, receivedAtMs: 1_700_000_000_000 }
const fixture = JSON.parse(readFileSync(new URL('../../../../tests/fixtures/coding-agent/claude-code-logs.json', import.meta.url), 'utf8'))

describe('decodeLogsRequest', () => {
  it('decodes the Claude Code fixture: event.name, time, attributes (ints as digits, doubles as numbers)', () => {
    const d = decodeLogsRequest(fixture, opts)
    expect(d.ok).toBe(true)
    if (!d.ok) return
    expect(d.events.map((e) => [e.event_name, e.time_unix_nano, e.body])).toEqual([
      ['api_request', 1755600031758000000n, 'claude_code.api_request'],
      ['tool_result', 1755600040000000000n, 'claude_code.tool_result'],
    ])
    expect(d.events[0]!.attributes).toMatchObject({ cost_usd: '0.1068663', input_tokens: '3', output_tokens: '5', cache_read_tokens: '17241', 'user.email': 'dev@acme.com', 'service.name': 'claude-code' })
    expect(JSON.parse(d.events[1]!.attributes.tool_parameters!)).toMatchObject({ git_commit_id: 'a1b2c3d' })
    expect(d.events[0]).toMatchObject({ source: 'otlp.logs', service_name: 'claude-code', org_id: 'o', workspace_id: 'w' })
  })

  it('names an event by its body when event.name is absent; falls back to observed time, then receipt', () => {
    const d = decodeLogsRequest({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'codex.user_prompt' }, observedTimeUnixNano: '7' }, { body: { stringValue: 'x' } }, { attributes: [] }] }] }] }, opts)
    expect(d.ok && d.events.map((e) => [e.event_name, e.time_unix_nano])).toEqual([
      ['codex.user_prompt', 7n],
      ['x', 1_700_000_000_000_000_000n],
    ])
    expect(d.ok && d.rejected.map((r) => r.reason)).toEqual(['log record has neither an event.name attribute, an eventName nor a string body naming the event'])
  })

  it('a malformed request is refused whole', () => {
    expect(decodeLogsRequest({ resourceLogs: 3 }, opts)).toEqual({ ok: false, message: 'resourceLogs is not a list' })
    expect(decodeLogsRequest({ resourceLogs: [{ scopeLogs: [{ logRecords: {} }] }] }, opts)).toEqual({ ok: false, message: 'resourceLogs[0].scopeLogs[0].logRecords is not a list' })
  })
})

describe('decodeActivityRequest', () => {
  it('maps records to activity.<type> events with Claude Code attribute names; top-level fields are defaults', () => {
    const d = decodeActivityRequest(
      {
        agent: 'aider',
        user_email: 'ann@acme.com',
        activities: [
          { type: 'api_request', timestamp: '2026-01-01T00:00:00Z', session_id: 's1', model: 'gpt-5', cost_usd: 0.5, input_tokens: 10, output_tokens: 2 },
          { type: 'commit', timestamp: 1767225600000, commit_sha: 'ABCDEF1', repository: 'acme/api', files: [{ path: 'a.ts', lines_added: 3 }] },
          { type: 'file_edit', timestamp: '2026-01-01T00:00:00Z', file_path: 'b.ts', lines_added: 1, lines_removed: 2, user_email: 'bob@acme.com' },
        ],
      },
      opts,
    )
    expect(d.ok).toBe(true)
    if (!d.ok) return
    expect(d.rejected).toEqual([])
    expect(d.events.map((e) => e.event_name)).toEqual(['activity.api_request', 'activity.commit', 'activity.file_edit'])
    expect(d.events[0]).toMatchObject({ source: 'activity', service_name: 'aider', time_unix_nano: 1767225600000000000n })
    expect(d.events[0]!.attributes).toMatchObject({ 'user.email': 'ann@acme.com', 'session.id': 's1', model: 'gpt-5', cost_usd: '0.5', input_tokens: '10', agent: 'aider' })
    expect(JSON.parse(d.events[1]!.attributes.files!)).toEqual([{ path: 'a.ts', lines_added: 3, lines_removed: 0 }])
    expect(d.events[2]!.attributes['user.email']).toBe('bob@acme.com')
  })

  it('an OTLP logs envelope (as OpenTelemetry logs exporters send): each record is an activity, decoded as the activity format would be', () => {
    const kv = (key: string, value: unknown) => ({ key, value })
    const str = (v: string) => ({ stringValue: v })
    const int = (v: number | string) => ({ intValue: v })
    const t = '1767225600000000000'
    const otlp = {
      resourceLogs: [{
        resource: { attributes: [kv('service.name', str('aider')), kv('user.email', str('ann@acme.com'))] },
        scopeLogs: [{
          scope: { name: 'activity', version: '1.0.0' },
          logRecords: [
            { timeUnixNano: t, observedTimeUnixNano: t, eventName: 'api_request', body: str('called the model'), attributes: [kv('session.id', str('s1')), kv('model', str('gpt-5')), kv('cost_usd', { doubleValue: 0.5 }), kv('input_tokens', int(10)), kv('output_tokens', int('2'))] },
            { timeUnixNano: t, attributes: [kv('event.name', str('activity.commit')), kv('commit_sha', str('ABCDEF1')), kv('repository', str('acme/api')), kv('files', { arrayValue: { values: [{ kvlistValue: { values: [kv('path', str('a.ts')), kv('lines_added', int(3))] } }] } })] },
            { timeUnixNano: t, body: str('file_edit'), attributes: [kv('file_path', str('b.ts')), kv('lines_added', int(1)), kv('lines_removed', int(2)), kv('user_email', str('bob@acme.com'))] },
            { timeUnixNano: t, eventName: 'claude_code.api_request' },
            { timeUnixNano: t, eventName: 'commit', attributes: [kv('repository', str('acme/api'))] },
          ],
        }],
      }],
    }
    const fromLogs = decodeActivityRequest(otlp, opts)
    const fromJson = decodeActivityRequest(
      {
        agent: 'aider',
        user_email: 'ann@acme.com',
        activities: [
          { type: 'api_request', timestamp: '2026-01-01T00:00:00Z', session_id: 's1', model: 'gpt-5', cost_usd: 0.5, input_tokens: 10, output_tokens: 2 },
          { type: 'commit', timestamp: 1767225600000, commit_sha: 'ABCDEF1', repository: 'acme/api', files: [{ path: 'a.ts', lines_added: 3 }] },
          { type: 'file_edit', timestamp: '2026-01-01T00:00:00Z', file_path: 'b.ts', lines_added: 1, lines_removed: 2, user_email: 'bob@acme.com' },
        ],
      },
      opts,
    )
    expect(fromLogs.ok && fromJson.ok).toBe(true)
    if (!fromLogs.ok || !fromJson.ok) return
    expect(fromLogs.events).toEqual(fromJson.events)
    expect(fromLogs.rejected.map((r) => r.reason)).toEqual([expect.stringMatching(/type "claude_code.api_request" is not one of/), expect.stringMatching(/commit_sha undefined is not a hex commit id/)])
    expect(fromLogs.rejected[1]!.item).toEqual(otlp.resourceLogs[0]!.scopeLogs[0]!.logRecords[4])
    expect(decodeActivityRequest({ resourceLogs: 3 }, opts)).toEqual({ ok: false, message: 'resourceLogs is not a list' })
  })

  it('rejects bad records alone and refuses a malformed request', () => {
    const d = decodeActivityRequest({ activities: [{ type: 'nope', timestamp: 1 }, { type: 'commit', timestamp: 1, commit_sha: 'xyz' }, { type: 'api_request', timestamp: 'yesterday' }, { type: 'api_request', timestamp: 5, cost_usd: -1 }, { type: 'file_edit', timestamp: 5 }] }, opts)
    expect(d.ok && d.events).toEqual([])
    expect(d.ok && d.rejected.length).toBe(5)
    expect(decodeActivityRequest({}, opts)).toEqual({ ok: false, message: 'activities is missing or not a list' })
    expect(decodeActivityRequest({ activities: [], user_email: 3 }, opts)).toEqual({ ok: false, message: 'user_email is not a string' })
  })
})

describe('stripEventText (capture_text off)', () => {
  it('drops prompt and output text; an apply_patch keeps its file headers and one +/- per line', () => {
    const e = { attributes: { prompt: 'secret plan', output: 'file contents', tool_name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch\n*** Update File: a.ts\n@@ ctx\n-old secret\n+new secret\n*** End Patch' }) } as Record<string, string> }
    expect(stripEventText(e)).toBe(3)
    expect(e.attributes).toEqual({ tool_name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch\n*** Update File: a.ts\n-\n+\n*** End Patch' }) })
    const other = { attributes: { arguments: '{"command":["cat","/etc/passwd"]}' } as Record<string, string> }
    stripEventText(other)
    expect(other.attributes.arguments).toBe('')
  })
})
