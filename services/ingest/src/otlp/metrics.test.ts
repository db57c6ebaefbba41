import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { decodeMetricsRequest } from './metrics.js'

const tenant = { org_id: 'o', workspace_id: 'w' }
const opts = { tenant, receivedAtMs: 1 }
const fixture = JSON.parse(readFileSync(new URL('../../../../tests/fixtures/coding-agent/claude-code-metrics.json', import.meta.url), 'utf8'))

const sum = (points: unknown[], extra: Record<string, unknown> = {}) => ({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: points, ...extra } }] }] }] })

describe('decodeMetricsRequest', () => {
  it('decodes the Claude Code fixture: sum (asDouble), sum (asInt as a string), gauge; resource attributes under the point', () => {
    const d = decodeMetricsRequest(fixture, opts)
    expect(d.ok).toBe(true)
    if (!d.ok) return
    expect(d.rejected).toEqual([])
    expect(d.points.map((p) => [p.metric_name, p.metric_type, p.temporality, p.value])).toEqual([
      ['claude_code.token.usage', 'sum', 'delta', 1523],
      ['claude_code.commit.count', 'sum', 'delta', 2],
      ['example.queue.depth', 'gauge', 'none', 7],
    ])
    expect(d.points[0]).toMatchObject({ org_id: 'o', workspace_id: 'w', is_monotonic: true, unit: 'tokens', service_name: 'claude-code', start_time_unix_nano: 1755600000000000000n, time_unix_nano: 1755600060000000000n })
    expect(d.points[0]!.attributes).toMatchObject({ 'service.name': 'claude-code', 'user.email': 'dev@acme.com', type: 'cacheRead', model: 'claude-sonnet-5', 'session.id': '4f7d…' })
    expect(d.points[2]!.start_time_unix_nano).toBe(0n)
  })

  it('temporality: 1/DELTA is delta, 2/CUMULATIVE and unset are cumulative', () => {
    const t = (v: unknown) => {
      const d = decodeMetricsRequest(sum([{ timeUnixNano: '5', asInt: 1 }], { aggregationTemporality: v }), opts)
      return d.ok ? d.points[0]!.temporality : d.message
    }
    expect([t(1), t('AGGREGATION_TEMPORALITY_DELTA'), t(2), t('AGGREGATION_TEMPORALITY_CUMULATIVE'), t(undefined), t(0)]).toEqual(['delta', 'delta', 'cumulative', 'cumulative', 'cumulative', 'cumulative'])
  })

  it('asInt as a string or a number, asDouble as a number or a string; histograms keep count and sum', () => {
    const d = decodeMetricsRequest(
      {
        resourceMetrics: [{ scopeMetrics: [{ metrics: [
          { name: 'a', sum: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: '5', asInt: '9007199254740' }, { timeUnixNano: '6', asInt: 3 }, { timeUnixNano: '7', asDouble: 0.25 }, { timeUnixNano: '8', asDouble: '1.5' }] } },
          { name: 'h', histogram: { aggregationTemporality: 1, dataPoints: [{ timeUnixNano: '9', count: '4', sum: 10.5, bucketCounts: ['1', '3'], explicitBounds: [5] }] } },
        ] }] }],
      },
      opts,
    )
    expect(d.ok && d.points.map((p) => [p.metric_type, p.value, p.count, p.is_monotonic])).toEqual([
      ['sum', 9007199254740, 0, false],
      ['sum', 3, 0, false],
      ['sum', 0.25, 0, false],
      ['sum', 1.5, 0, false],
      ['histogram', 10.5, 4, true],
    ])
  })

  it('rejects bad points alone (dead letters), the rest is accepted', () => {
    const d = decodeMetricsRequest(sum([{ timeUnixNano: '5', asInt: 'x' }, { timeUnixNano: '5' }, { asInt: 1 }, { timeUnixNano: '5', asDouble: 'NaN' }, { timeUnixNano: '6', asInt: 2 }]), opts)
    expect(d.ok).toBe(true)
    if (!d.ok) return
    expect(d.points.map((p) => p.value)).toEqual([2])
    expect(d.rejected.map((r) => r.reason)).toEqual([
      'metric m: asInt "x" is not an integer',
      'metric m: data point has neither asInt nor asDouble',
      'metric m: timeUnixNano undefined is missing or not nanoseconds',
      'metric m: asDouble "NaN" is not a finite number',
    ])
    const summary = decodeMetricsRequest({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 's', summary: { dataPoints: [] } }] }] }] }, opts)
    expect(summary.ok && summary.rejected[0]!.reason).toBe('metric s: only sum, gauge and histogram are accepted')
  })

  it('a malformed request is refused whole', () => {
    expect(decodeMetricsRequest([], opts)).toMatchObject({ ok: false })
    expect(decodeMetricsRequest({}, opts)).toEqual({ ok: false, message: 'resourceMetrics is missing' })
    expect(decodeMetricsRequest({ resourceMetrics: {} }, opts)).toEqual({ ok: false, message: 'resourceMetrics is not a list' })
    expect(decodeMetricsRequest({ resourceMetrics: [{ resource: { attributes: {} } }] }, opts)).toEqual({ ok: false, message: 'resourceMetrics[0].resource.attributes is not a list' })
    expect(decodeMetricsRequest(sum([{ timeUnixNano: '5', asInt: 1, attributes: { a: 1 } }]), opts)).toMatchObject({ ok: false, message: expect.stringContaining('attributes is not a list') })
  })
})
