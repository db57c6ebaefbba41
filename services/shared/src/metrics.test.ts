import { describe, expect, it } from 'vitest'
import { metricsApp, processRegistry, registerConsumerLag } from './metrics.js'
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
})
