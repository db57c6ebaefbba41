import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryCache } from '../cache/memory.js'
import { processRegistry } from '../metrics.js'
import { forgetGroupLag, lagBatchDone, lagBatchFailed, lagBatchStarted, localLagMs, pipelineNamespace, publishConsumerLag, readConsumerLagMs } from './consumer-lag.js'
import type { ConsumedRecord } from './types.js'

const rec = (partition: number, offset: number, timestamp: number, topic = 't.v1'): ConsumedRecord => ({ topic, partition, offset: String(offset), key: null, value: Buffer.alloc(0), timestamp })

afterEach(() => {
  forgetGroupLag('g')
  forgetGroupLag('other')
})

describe('consumer lag in time', () => {
  it('is the age of the first record of the batch in hand, per partition, the oldest partition counting', () => {
    expect(localLagMs('g', 't.v1', 10_000)).toBeNull()
    lagBatchStarted('g', [rec(0, 0, 1000), rec(0, 1, 1500)], 2000)
    lagBatchStarted('g', [rec(1, 7, 4000)], 4000)
    expect(localLagMs('g', 't.v1', 5000)).toBe(4000)
    expect(localLagMs('g', 'other.v1', 5000)).toBeNull()
  })

  it('after a batch: caught up when nothing followed it, else no younger than its last record', () => {
    lagBatchStarted('g', [rec(0, 0, 1000), rec(0, 1, 3000)], 3000)
    lagBatchDone('g', [rec(0, 0, 1000), rec(0, 1, 3000)], 50, 3500)
    expect(localLagMs('g', 't.v1', 5000)).toBe(2000)
    lagBatchStarted('g', [rec(0, 2, 3200)], 5000)
    lagBatchDone('g', [rec(0, 2, 3200)], 0, 5000)
    expect(localLagMs('g', 't.v1', 9000)).toBe(0)
    // A bus that cannot tell what followed counts as caught up, so it never refuses ingest by guesswork.
    lagBatchStarted('g', [rec(0, 3, 8000)], 9000)
    lagBatchDone('g', [rec(0, 3, 8000)], undefined, 9000)
    expect(localLagMs('g', 't.v1', 20_000)).toBe(0)
  })

  it('keeps the partitions and topics of one batch apart when their records interleave', () => {
    const batch = [rec(0, 0, 1000), rec(1, 0, 3000), rec(0, 1, 1100), rec(0, 0, 900, 'u.v1'), rec(1, 1, 3100)]
    lagBatchStarted('g', batch, 4000)
    expect(localLagMs('g', 't.v1', 5000)).toBe(4000)
    expect(localLagMs('g', 'u.v1', 5000)).toBe(4100)
    // Each partition resumes after its own last record: 0 after 1,100 ms, 1 after 3,100 ms (something followed both).
    lagBatchDone('g', batch, 10, 6000)
    expect(localLagMs('g', 't.v1', 7000)).toBe(5900)
  })

  it('keeps growing while the handler fails and the batch is delivered again', () => {
    lagBatchStarted('g', [rec(0, 0, 1000)], 1000)
    lagBatchFailed('g', [rec(0, 0, 1000)], 1200)
    expect(localLagMs('g', 't.v1', 61_000)).toBe(60_000)
  })

  it('forgets a group whose subscription closed', () => {
    lagBatchStarted('g', [rec(0, 0, 1000)], 1000)
    forgetGroupLag('g')
    expect(localLagMs('g', 't.v1', 5000)).toBeNull()
  })

  it('reaches other processes through the cache: one key per partition, read back as the oldest age', async () => {
    const cache = createMemoryCache()
    const ns = pipelineNamespace({ SVC_BUS: 'kafka', KAFKA_TOPIC_PREFIX: 'env1.', SVC_DATA_DIR: '/x' })
    const now = Date.now()
    lagBatchStarted('g', [rec(0, 0, now - 12_000)], now)
    lagBatchStarted('g', [rec(2, 0, now - 3000)], now)
    lagBatchStarted('g', [rec(1, 0, now)], now)
    lagBatchDone('g', [rec(1, 0, now)], 0, now)
    const pub = publishConsumerLag(cache, ns)
    try {
      expect(await readConsumerLagMs(cache, ns, 'g', 't.v1', 3, now)).toBeNull()
      // Published on the next tick of the publisher (every second).
      for (let i = 0; i < 200 && (await readConsumerLagMs(cache, ns, 'g', 't.v1', 3, now)) === null; i++) await new Promise((r) => setTimeout(r, 50))
      expect(await readConsumerLagMs(cache, ns, 'g', 't.v1', 3, now)).toBe(12_000)
      // Another environment sharing the cache sees nothing of it.
      expect(await readConsumerLagMs(cache, pipelineNamespace({ SVC_BUS: 'kafka', KAFKA_TOPIC_PREFIX: 'env2.', SVC_DATA_DIR: '/x' }), 'g', 't.v1', 3, now)).toBeNull()
    } finally {
      await pub.stop()
      await cache.close()
    }
  })

  it('shows the groups of the process on /metrics in seconds', async () => {
    const now = Date.now()
    lagBatchStarted('g', [rec(0, 0, now - 5000)], now)
    const text = await processRegistry.getSingleMetricAsString('svc_consumer_lag_seconds')
    const v = Number(/svc_consumer_lag_seconds\{group="g",topic="t.v1"\} (\S+)/.exec(text)?.[1])
    expect(v).toBeGreaterThanOrEqual(5)
  })
})
