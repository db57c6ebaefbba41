/**
 * The results sink on the real embedded log and embedded ClickHouse: results that
 * cannot be landed are dead-lettered and the batch goes on; the sources engine's
 * citations and verdicts count each trace once, as its newest analysis saw them; a
 * trace the worker skipped lands as a skip, never as a result.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { deadLetterV1, engineResultV1, type EngineResultRecord } from '@svc/shared/bus/records'
import { consumerBatchHandler, runConsumer } from '@svc/shared/bus/run-consumer'
import { dlqTopic, GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { loadConfig } from '@svc/shared/config'
import { stableUuid } from '@svc/shared/control/secrets'
import { createLogger } from '@svc/shared/log'
import { latestEngineResults, latestEngineSkips } from '@svc/shared/store/queries/engine-results'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { listSources, type SourceCitation, type SourceFeedback } from '@svc/shared/store/queries/sources'
import type { Store } from '@svc/shared/store/types'
import { workspacePriors } from './priors.js'
import { resultSinkConsumer } from './result-sink.js'

const log = createLogger({ level: 'silent' })
const ORG = stableUuid('org:result-sink')
const WS = stableUuid('ws:result-sink')
let dir: string
let store: Store
let bus: Bus

const result = (trace: string, over: Partial<EngineResultRecord> = {}): EngineResultRecord => ({
  org_id: ORG, workspace_id: WS, trace_id: trace, engine: 'decision_trace', engine_version: 't1', mode: 'deterministic',
  payload_json: JSON.stringify({ trace_id: trace, nodes: [] }), extras_json: '{}', llm_input_tokens: 0, llm_output_tokens: 0,
  computed_at_ms: 1_700_000_000_000, expires_at_s: Math.floor(Date.now() / 1000) + 3600, ...over,
})

async function readAll(topic: string): Promise<ConsumedRecord[]> {
  const out: ConsumedRecord[] = []
  const total = [...(await bus.endOffsets(topic)).values()].reduce((a, b) => a + Number(b), 0)
  if (total === 0) return out
  const sub = await bus.subscribe({ group: `read-${Math.random()}`, topics: [topic], ephemeral: true, onBatch: async (rs) => void out.push(...rs) })
  while (out.length < total) await new Promise((r) => setTimeout(r, 5))
  await sub.close()
  return out
}

async function drained(group: string, topic: string) {
  const end = (await bus.endOffsets(topic)).get(0)
  for (let i = 0; i < 4000 && (await bus.committedOffsets(group, topic)).get(0) !== end; i++) await new Promise((r) => setTimeout(r, 5))
  expect((await bus.committedOffsets(group, topic)).get(0)).toBe(end)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'result-sink-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  bus = await createEmbeddedBus({ dir: join(dir, 'log') })
  await bus.ensureTopics([TOPICS.engineResults, dlqTopic(TOPICS.engineResults)].map((name) => ({ name, partitions: 1 })))
})
afterAll(async () => {
  await bus?.close()
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('results sink', () => {
  it('lands a skipped trace (mode skipped) in engine_skips_v1 with why and at which rate, and no result for it', async () => {
    const trace = 'e'.repeat(32)
    const skipped = result(trace, { engine: 'content_reliability', mode: 'skipped', payload_json: JSON.stringify({ trace_id: trace, skipped: 'backlog', sample_rate: 0.125 }), computed_at_ms: Date.now() })
    await consumerBatchHandler(bus, resultSinkConsumer(store, log))([{ topic: TOPICS.engineResults, partition: 0, offset: '0', key: null, timestamp: Date.now(), value: engineResultV1.encode(skipped) }])
    expect((await latestEngineResults(store, WS, trace, ['content_reliability'])).size).toBe(0)
    expect((await latestEngineSkips(store, WS, trace, ['content_reliability'])).get('content_reliability')).toEqual({ engine: 'content_reliability', reason: 'backlog', sample_rate: 0.125, skipped_at_ms: skipped.computed_at_ms })
  })

  it('dead-letters undecodable and unlandable results, lands the good ones around them, and commits', async () => {
    const key = `${WS}:t`
    await bus.produce(TOPICS.engineResults, [
      { key, value: engineResultV1.encode(result('a'.repeat(32))) },
      { key, value: Buffer.from('garbage') },
      { key, value: engineResultV1.encode(result('b'.repeat(32), { extras_json: '{not json' })) },
      { key, value: engineResultV1.encode(result('c'.repeat(32), { workspace_id: 'not-a-uuid' })) },
      { key, value: engineResultV1.encode(result('d'.repeat(32))) },
    ])
    const sub = await runConsumer(bus, resultSinkConsumer(store, log))
    await drained(GROUPS.engineResultsSink, TOPICS.engineResults)
    await sub.close()

    for (const t of ['a', 'd']) expect((await latestEngineResults(store, WS, t.repeat(32), ['decision_trace'])).has('decision_trace')).toBe(true)
    expect((await latestEngineResults(store, WS, 'b'.repeat(32), ['decision_trace'])).size).toBe(0)
    const dead = (await readAll(dlqTopic(TOPICS.engineResults))).map((r) => deadLetterV1.decode(r.value))
    expect(dead.map((d) => [Number(d.original_offset), d.source, d.workspace_id])).toEqual([
      [1, GROUPS.engineResultsSink, WS],
      [2, GROUPS.engineResultsSink, WS],
      [3, GROUPS.engineResultsSink, 'not-a-uuid'],
    ])
    expect(dead[1]!.reason).toMatch(/not JSON/)
    expect(engineResultV1.decode(dead[2]!.original_value!).trace_id).toBe('c'.repeat(32))
  })

  describe('sources', () => {
    const SWS = stableUuid('ws:result-sink-sources')
    let offset = 0
    const sourcesResult = (trace: string, computedAt: number, cited: Array<[string, SourceCitation['kind']]>, verdicts: Array<[string, SourceCitation['kind'], number, number]>) => ({
      topic: TOPICS.engineResults, partition: 0, offset: String(offset++), key: null, timestamp: computedAt,
      value: engineResultV1.encode(result(trace, {
        workspace_id: SWS, engine: 'sources', computed_at_ms: computedAt,
        extras_json: JSON.stringify({
          citations: cited.map(([domain, kind]): SourceCitation => ({ workspace_id: SWS, domain, kind, seen_at_ms: computedAt })),
          feedback: verdicts.map(([domain, kind, supported, unsupported]): SourceFeedback => ({ workspace_id: SWS, domain, kind, supported, unsupported })),
        }),
      })),
    }) satisfies ConsumedRecord
    const sink = () => consumerBatchHandler(bus, resultSinkConsumer(store, log))
    const listed = async () => Object.fromEntries((await listSources(store, SWS)).map((s) => [s.domain, s]))
    const T1 = '1'.repeat(32)
    const T2 = '2'.repeat(32)
    const at = 1_700_000_000_000

    it('counts a result delivered twice once', async () => {
      const first = sourcesResult(T1, at, [['kb.example.com', 'internal_kb'], ['blog.example.org', 'web']], [['kb.example.com', 'internal_kb', 2, 0], ['blog.example.org', 'web', 0, 1]])
      await sink()([first])
      // A replay after a crash: the same result again, in another batch.
      await sink()([first, { ...first, offset: String(offset++) }])
      const s = await listed()
      expect(s['kb.example.com']).toMatchObject({ citation_count: 1, authority_prior: 0.75, last_seen: new Date(at).toISOString() })
      expect(s['blog.example.org']).toMatchObject({ citation_count: 1, authority_prior: 0.333333 })
    })

    it('replaces a re-analysed trace\'s sources and verdicts with its newest analysis, in the list and the priors', async () => {
      // A late span re-armed T1: the sources engine ran again and judged differently; blog.example.org is no longer used.
      const later = at + 60_000
      await sink()([sourcesResult(T1, later, [['kb.example.com', 'internal_kb'], ['docs.example.net', 'web']], [['kb.example.com', 'internal_kb', 0, 1]])])
      // The older analysis delivered late (a replay) changes nothing.
      await sink()([sourcesResult(T1, at, [['kb.example.com', 'internal_kb'], ['blog.example.org', 'web']], [['kb.example.com', 'internal_kb', 2, 0]])])
      await sink()([sourcesResult(T2, later, [['kb.example.com', 'internal_kb']], [['kb.example.com', 'internal_kb', 1, 0]])])
      const s = await listed()
      expect(Object.keys(s).sort()).toEqual(['docs.example.net', 'kb.example.com'])
      expect(s['kb.example.com']).toMatchObject({ citation_count: 2, authority_prior: 0.5, last_seen: new Date(later).toISOString() })
      expect(s['docs.example.net']).toMatchObject({ citation_count: 1, authority_prior: 0.5 })
      const prior = await workspacePriors(store).of(SWS)
      expect(prior('https://kb.example.com/refunds', 'internal_kb')).toBe(0.5)
      expect(prior('https://blog.example.org/post', 'web')).toBe(0.5)

      // A re-analysis that cites nothing any more takes the trace's sources away.
      await sink()([sourcesResult(T2, later + 1, [], [])])
      expect((await listed())['kb.example.com']).toMatchObject({ citation_count: 1, authority_prior: 0.333333 })
    })
  })
})
