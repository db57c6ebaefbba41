// Produces numbered records as fast as it can and prints each acknowledged offset,
// until the parent kills it with SIGKILL (the crash test).
import { createEmbeddedBus } from '../index.js'

const dir = process.argv[2]!
const bus = await createEmbeddedBus({ dir, segmentBytes: 64 << 10 })
await bus.ensureTopics([{ name: 'crash', partitions: 2 }])
let n = 0
const worker = async () => {
  for (;;) {
    const batch = Array.from({ length: 1 + (n % 7) }, () => {
      const i = n++
      return { key: `k${i % 13}`, value: Buffer.from(`value-${i}`) }
    })
    const metas = await bus.produce('crash', batch)
    process.stdout.write(metas.map((m, j) => `${m.partition}:${m.offset}:${batch[j]!.value.toString()}\n`).join(''))
  }
}
await Promise.all([worker(), worker(), worker(), worker()])
