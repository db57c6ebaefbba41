import { describe, expect, it } from 'vitest'
import { metricsApp, PIPELINE_LAG, processRegistry, registerConsumerLag, watchConsumerLag } from './metrics.js'
import { DEAD_LETTER_TOPICS, engineGroup, GROUPS, TOPICS, TRACE_ENGINES } from './bus/topics.js'
import type { Bus } from './bus/types.js'

describe('process metrics', () => {
  it('serves the registry and reports consumer lag per group, topic and partition from the bus', async () => {
    const bus = {
      endOffsets: async () => new Map([[0, '120'], [1, '40']]),
      committedOffsets: async () => new Map([[0, '100']]),
    } as unknown as Bus
    registerConsumerLag(bus, [{ group: 'assembler', topic: 'spans.raw.v1' }])
    const res = await metricsApp().request('/metrics')
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).toContain('svc_consumer_lag_records{group="assembler",topic="spans.raw.v1",partition="0"} 20')
    expect(text).toContain('svc_consumer_lag_records{group="assembler",topic="spans.raw.v1",partition="1"} 40')
    expect(text).toContain('svc_process_resident_memory_bytes')
    processRegistry.removeSingleMetric('svc_consumer_lag_records')
  })

  it('reports the lag of every consumer group of the pipeline, and of any group started in the process', async () => {
    const bus = { endOffsets: async () => new Map([[0, '5']]), committedOffsets: async () => new Map() } as unknown as Bus
    watchConsumerLag('started-here', ['some.topic.v1'])
    registerConsumerLag(bus, PIPELINE_LAG)
    const text = await processRegistry.getSingleMetricAsString('svc_consumer_lag_records')
    const pairs = new Set([...text.matchAll(/group="([^"]+)",topic="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`))
    const expected = [
      `${GROUPS.assembler} ${TOPICS.spansRaw}`,
      ...DEAD_LETTER_TOPICS.map((t) => `${GROUPS.deadLetterSink} ${t}`),
      `${GROUPS.engineResultsSink} ${TOPICS.engineResults}`,
      `${GROUPS.alignmentDocuments} ${TOPICS.alignmentDocuments}`,
      `${GROUPS.codingAgent} ${TOPICS.codingAgentMetrics}`,
      `${GROUPS.codingAgent} ${TOPICS.codingAgentEvents}`,
      ...TRACE_ENGINES.map((e) => `${engineGroup(e)} engine.${e}.jobs.v1`),
      'started-here some.topic.v1',
    ]
    for (const p of expected) expect(pairs).toContain(p)
    // Every group the bus catalog names is watched.
    for (const g of Object.values(GROUPS)) expect([...pairs].some((p) => p.startsWith(`${g} `))).toBe(true)
    processRegistry.removeSingleMetric('svc_consumer_lag_records')
  })
})
