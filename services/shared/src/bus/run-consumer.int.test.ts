/**
 * The consumer runner on a real Kafka broker (through the namespaced bus, as the
 * services run): poison goes to `<topic>.dlq`, the good records are handled once,
 * and the group's offsets reach the end of the topic.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createLogger } from '../log.js'
import { createKafkaBus } from './kafka.js'
import { namespacedBus } from './namespace.js'
import { alignmentDocumentV1, deadLetterV1, type AlignmentDocumentRecord, type DeadLetterRecord } from './records.js'
import { runConsumer } from './run-consumer.js'
import { eventually } from '../test-support/eventually.js'
import type { Bus } from './types.js'

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'warn', name: 'run-consumer-test' })
const WS = '5b1d7f3c-2e9a-4c61-8d0b-7a3e9f1c2b44'

describe('runConsumer on kafka', () => {
  let bus: Bus
  beforeAll(async () => {
    const kafka = await createKafkaBus({ brokers: inject('kafkaBrokers').split(','), clientId: 'run-consumer-test', log })
    bus = namespacedBus(kafka, `${inject('kafkaTopicRoot')}rct.${Date.now().toString(36)}.${randomUUID().slice(0, 6)}.`)
    await bus.ensureTopics(['docs.v1', 'docs.v1.dlq'].map((name) => ({ name, partitions: name.endsWith('.dlq') ? 1 : 2 })))
  })
  afterAll(async () => {
    await bus?.close()
  })

  it('dead-letters undecodable and rejected records whole, handles the rest once, and commits to the end', async () => {
    const doc = (id: string): AlignmentDocumentRecord => ({ org_id: 'o', workspace_id: WS, doc_id: id, filename: id, content_type: 'text/plain', text: id, uploaded_at_ms: 1 })
    await bus.produce('docs.v1', [
      { key: `${WS}:a`, value: alignmentDocumentV1.encode(doc('a')) },
      { key: `${WS}:b`, value: Buffer.from('not avro') },
      { key: `${WS}:c`, value: alignmentDocumentV1.encode(doc('poison')) },
      { key: `${WS}:d`, value: alignmentDocumentV1.encode(doc('d')) },
    ])
    const handled: string[] = []
    const sub = await runConsumer(bus, {
      group: 'docs-consumer',
      topics: { 'docs.v1': alignmentDocumentV1 },
      log,
      async handle(batch) {
        const bad = batch.filter((d) => d.value.doc_id === 'poison')
        for (const d of batch) if (!bad.includes(d)) handled.push(d.value.doc_id)
        return bad.map((d) => ({ record: d.record, reason: 'poison (test)', workspaceId: d.value.workspace_id }))
      },
    })
    await sub.ready
    const lagZero = async () => {
      const [ends, done] = await Promise.all([bus.endOffsets('docs.v1'), bus.committedOffsets('docs-consumer', 'docs.v1')])
      return [...ends].every(([p, end]) => end === '0' || done.get(p) === end)
    }
    await eventually(lagZero, 30_000, 100)
    await sub.close()
    expect(handled.sort()).toEqual(['a', 'd'])

    const dead: Array<Required<DeadLetterRecord>> = []
    const read = await bus.subscribe({ group: 'read', topics: ['docs.v1.dlq'], ephemeral: true, onBatch: async (rs) => void dead.push(...rs.map((r) => deadLetterV1.decode(r.value) as Required<DeadLetterRecord>)) })
    await eventually(async () => dead.length >= 2, 30_000, 100)
    await read.close()
    expect(dead.map((d) => d.reason.startsWith('undecodable') ? 'undecodable' : d.reason).sort()).toEqual(['poison (test)', 'undecodable'])
    expect(dead.every((d) => d.workspace_id === WS && d.original_topic === 'docs.v1' && d.source === 'docs-consumer')).toBe(true)
    expect(dead.find((d) => d.reason === 'poison (test)')!.original_value).toEqual(alignmentDocumentV1.encode(doc('poison')))
  })
})
