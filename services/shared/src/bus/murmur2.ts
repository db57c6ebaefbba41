/**
 * Kafka's default partitioner for keyed records: murmur2 of the key's UTF-8 bytes,
 * made positive, modulo the partition count (the Java client's and kafkajs's
 * DefaultPartitioner). kafkajs computes the hash with 64-bit long.js arithmetic,
 * which cost ~5% of the all-in-one's main thread at 10k spans/s; only the low 32
 * bits ever matter, so Math.imul gives the same result for a fraction of the work.
 * murmur2.test.ts checks it against kafkajs's partitioner.
 */
const SEED = 0x9747b28c
const M = 0x5bd1e995

export function murmur2(data: Uint8Array): number {
  const length = data.length
  let h = SEED ^ length
  const whole = length & ~3
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)
    k = Math.imul(k, M)
    k ^= k >>> 24
    k = Math.imul(k, M)
    h = Math.imul(h, M) ^ k
  }
  switch (length & 3) {
    case 3:
      h ^= data[whole + 2]! << 16
    // falls through
    case 2:
      h ^= data[whole + 1]! << 8
    // falls through
    case 1:
      h ^= data[whole]!
      h = Math.imul(h, M)
  }
  h ^= h >>> 13
  h = Math.imul(h, M)
  h ^= h >>> 15
  return h | 0
}

export function kafkaPartitionForKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key)) & 0x7fffffff) % partitions
}
