import { describe, expect, it } from 'vitest'
import { detectFleetAnomalies, median, MAX_ANOMALIES, type AgentDay, type AgentFigures } from './fleet.js'

const day = (o: Partial<AgentDay> = {}): AgentDay => ({ traces: 100, costUsd: 1, tokens: 50_000, llmCalls: 200, ...o })
/** Seven baseline days with a little day-to-day noise, so the deviation is real, not the floor. */
const noisy = (o: Partial<AgentDay> = {}) => [0.95, 1.05, 1, 0.98, 1.02, 1, 1].map((k) => day({ traces: Math.round(100 * k), costUsd: (o.costUsd ?? 1) * k, tokens: (o.tokens ?? 50_000) * k, ...o, ...(o.traces === undefined ? {} : { traces: Math.round(o.traces * k) }) }))
const agent = (name: string, recent: Partial<AgentDay> = {}, baseline = noisy()): AgentFigures => ({ agent: name, baseline, recent: day(recent) })

describe('fleet anomalies', () => {
  it('flags a spiking agent and leaves its steady peers alone', () => {
    const out = detectFleetAnomalies([agent('steady-a'), agent('steady-b'), agent('spiky', { costUsd: 3, tokens: 150_000 })])
    expect(out.every((a) => a.agent === 'spiky')).toBe(true)
    const by = Object.fromEntries(out.map((a) => [a.dimension, a]))
    expect(by.cost_per_trace).toMatchObject({ recent: 0.03, baseline: 0.01, delta: 2, direction: 'worse', basis: 'own_history' })
    expect(by.cost_per_trace!.z_score).toBeGreaterThan(3)
    expect(by.tokens_per_trace).toMatchObject({ delta: 2, direction: 'worse' })
    // Its slice of the workspace's cost went from a third to 60%.
    expect(by.cost_share).toMatchObject({ recent: 0.6, direction: 'changed', basis: 'own_history' })
    expect(by.traces).toBeUndefined()
  })

  it('reports nothing for a steady fleet, and a cheaper agent as better', () => {
    expect(detectFleetAnomalies([agent('a'), agent('b', { costUsd: 1.02 }), agent('c', { traces: 104 })])).toEqual([])
    const cheaper = detectFleetAnomalies([agent('a', { costUsd: 0.4 })]).find((x) => x.dimension === 'cost_per_trace')
    expect(cheaper).toMatchObject({ delta: -0.6, direction: 'better' })
  })

  it('needs both a large z and a large relative change', () => {
    // Noisy baseline (cost per trace 0.005 to 0.015): +40% is inside its spread.
    const wide = [0.5, 1.5, 1, 0.6, 1.4, 1, 1].map((k) => day({ costUsd: k }))
    expect(detectFleetAnomalies([agent('a', { costUsd: 1.4 }, wide)]).filter((x) => x.dimension === 'cost_per_trace')).toEqual([])
  })

  it('handles a flat baseline without an infinite z', () => {
    const flat = Array.from({ length: 7 }, () => day())
    const [hit] = detectFleetAnomalies([agent('flat', { costUsd: 2 }, flat)]).filter((x) => x.dimension === 'cost_per_trace')
    expect(hit).toMatchObject({ delta: 1, direction: 'worse' })
    expect(hit!.z_score).toBe(10) // the deviation floor: 10% of the mean
    // A small move on a flat baseline is still no anomaly: the relative change decides.
    expect(detectFleetAnomalies([agent('flat', { costUsd: 1.2 }, flat)])).toEqual([])
  })

  it('compares an agent without history with the fleet', () => {
    const peers = ['a', 'b', 'c', 'd'].map((n, i) => agent(n, { costUsd: 1 + i * 0.02 }))
    const out = detectFleetAnomalies([...peers, agent('new', { costUsd: 5 }, [])])
    // The peers' shares of cost shrank as the newcomer took its slice: echoes, not anomalies.
    expect(out.map((x) => [x.agent, x.dimension, x.basis])).toEqual([['new', 'cost_per_trace', 'fleet']])
    expect(out[0]).toMatchObject({ recent: 0.05, baseline: 0.0103, direction: 'worse' })
    // In line with its peers: nothing.
    expect(detectFleetAnomalies([...peers, agent('new', { costUsd: 1.01 }, [])])).toEqual([])
    // Too few peers to say.
    expect(detectFleetAnomalies([peers[0]!, peers[1]!, agent('new', { costUsd: 5 }, [])])).toEqual([])
  })

  it('ignores tiny traffic', () => {
    const tiny = Array.from({ length: 7 }, () => day({ traces: 1, costUsd: 0.01, tokens: 500 }))
    const out = detectFleetAnomalies([agent('a'), agent('b'), agent('c'), agent('tiny', { traces: 1, costUsd: 1, tokens: 90_000 }, tiny)])
    expect(out.filter((x) => x.agent === 'tiny')).toEqual([])
  })

  it('flags an agent going quiet, and one whose volume jumps', () => {
    const out = detectFleetAnomalies([agent('quiet', { traces: 0, costUsd: 0, tokens: 0 }), agent('busy', { traces: 400, costUsd: 4, tokens: 200_000 })])
    const vol = Object.fromEntries(out.filter((x) => x.dimension === 'traces').map((x) => [x.agent, x]))
    expect(vol.quiet).toMatchObject({ recent: 0, delta: -1, direction: 'changed' })
    expect(vol.busy).toMatchObject({ recent: 400, delta: 3, direction: 'changed' })
  })

  it('is deterministic, most severe first, and capped', () => {
    const fleet = [agent('b', { costUsd: 3 }), agent('a', { costUsd: 5 }), agent('c')]
    const out = detectFleetAnomalies(fleet)
    expect(detectFleetAnomalies([...fleet].reverse())).toEqual(out)
    expect(out[0]).toMatchObject({ agent: 'a', dimension: 'cost_per_trace' })
    for (let i = 1; i < out.length; i++) expect(Math.abs(out[i - 1]!.z_score)).toBeGreaterThanOrEqual(Math.abs(out[i]!.z_score))
    const many = Array.from({ length: 200 }, (_, i) => agent(`x${String(i).padStart(3, '0')}`, { costUsd: 5, tokens: 500_000 }))
    expect(detectFleetAnomalies(many)).toHaveLength(MAX_ANOMALIES)
    expect(detectFleetAnomalies([])).toEqual([])
    expect(median([3, 1, 2, 10])).toBe(2.5)
  })
})
