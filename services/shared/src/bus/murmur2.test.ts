import { randomBytes } from 'node:crypto'
import { Partitioners } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { kafkaPartitionForKey } from './murmur2.js'

describe('kafkaPartitionForKey', () => {
  it("picks the partition kafkajs's DefaultPartitioner picks, for any key length and partition count", () => {
    const kafkajs = Partitioners.DefaultPartitioner()
    for (const partitions of [1, 2, 3, 6, 7, 64]) {
      const partitionMetadata = Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }))
      for (let n = 0; n < 2000; n++) {
        // Every remainder of length mod 4, multi-byte UTF-8, and the service's own key shape.
        const key = n % 3 === 0 ? `${randomBytes(16).toString('hex')}:${randomBytes(16).toString('hex')}` : randomBytes(n % 37).toString('latin1') + (n % 5 === 0 ? 'é漢' : '')
        expect(kafkaPartitionForKey(key, partitions)).toBe(kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }))
      }
    }
  })
})
