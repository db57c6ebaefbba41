import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/process.js'
import { startLocalBroker, type LocalBroker } from '../support/services.js'
import { eventually } from '../support/stack.js'

const TOPIC = 'restart-check'
const GROUP = 'restart-check-group'

/**
 * deploy/kafka/run-local-broker.sh started again on its log dir (as an operator
 * restarts a broker, and as the CI script could) comes up with the topics, records
 * and group offsets it had: the KRaft cluster id is kept with the data, where a new
 * random one would make the broker refuse its own data dir.
 */
describe('the local broker restarts on its log dir', () => {
  const logDir = mkdtempSync(join(tmpdir(), 'svc-broker-restart-'))
  let broker: LocalBroker | undefined
  afterAll(async () => {
    await broker?.stop('SIGKILL')
    rmSync(logDir, { recursive: true, force: true })
  })

  it('keeps topics, records and offsets across a crash', async () => {
    const ports = { port: await freePort(), controllerPort: await freePort(), logDir }
    broker = await startLocalBroker(ports)
    const kafka = new Kafka({ brokers: [broker.brokers], clientId: 'restart-check', logLevel: logLevel.NOTHING, retry: { retries: 10 } })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }], waitForLeaders: true })
    const producer = kafka.producer({ idempotent: true })
    await producer.connect()
    await producer.send({ topic: TOPIC, acks: -1, messages: [0, 1, 2, 3, 4].map((i) => ({ partition: i % 2, value: `record ${i}` })) })
    await producer.disconnect()
    await admin.setOffsets({ groupId: GROUP, topic: TOPIC, partitions: [{ partition: 0, offset: '2' }, { partition: 1, offset: '1' }] })
    await admin.disconnect()
    const before = await stateOf(broker.brokers)
    expect(before).toEqual({ partitions: [0, 1], ends: ['3', '2'], committed: ['2', '1'] })

    // A crash, then a start on the same dir and ports.
    await broker.stop('SIGKILL')
    broker = await startLocalBroker(ports)
    expect(await stateOf(broker.brokers)).toEqual(before)
  }, 120_000)
})

/**
 * The topic's partitions, each one's end offset, and the group's committed offsets,
 * once a restarted broker answers for them (its group coordinator loads the offsets
 * topic first, answering "coordinator is loading" until then).
 */
const stateOf = (brokers: string) => eventually(() => readState(brokers), 60_000, 500)

async function readState(brokers: string): Promise<{ partitions: number[]; ends: string[]; committed: string[] }> {
  const admin = new Kafka({ brokers: [brokers], clientId: 'restart-check', logLevel: logLevel.NOTHING, retry: { retries: 10 } }).admin()
  await admin.connect()
  try {
    const [meta] = (await admin.fetchTopicMetadata({ topics: [TOPIC] })).topics
    const ends = (await admin.fetchTopicOffsets(TOPIC)).sort((a, b) => a.partition - b.partition)
    const [group] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] })
    return {
      partitions: meta!.partitions.map((p) => p.partitionId).sort(),
      ends: ends.map((e) => e.high),
      committed: group!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset),
    }
  } finally {
    await admin.disconnect()
  }
}
