/**
 * The labelled trace set under tests/fixtures/engines: each file is one realistic
 * agent trace in the flat ingest form plus the labels a person gave it. Loading
 * runs the spans through the real ingest decoder and the assembler's row builder,
 * so engines see exactly what they would see from the store.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { spanRow } from '@svc/assembler/assemble'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { decodeTraceRequest } from '@svc/ingest/otlp/decode'
import { loadV2Fixtures } from '../../../../tests/fixtures/engines-v2/fixtures-v2.js'
import { traceViewFromRows, type TraceView } from '../trace-view.js'

export const FIXTURE_DIR = fileURLToPath(new URL('../../../../tests/fixtures/engines/', import.meta.url))
export const FIXTURE_WORKSPACE = '00000000-0000-4000-8000-0000000000e1'

export interface FixtureLabels {
  /**
   * content_reliability: each output claim (a distinctive substring of it) and whether the trace's evidence supports it;
   * the v2 sets (tests/fixtures/engines-v2) add the three-way verdict and the difficulty it tests.
   */
  claims?: Array<{ text: string; supported: boolean; verdict?: 'supported' | 'not_supported' | 'contradicted'; kind?: string }>
  /** v2: the span whose output is the reply the user saw, and spans repeating the same reply. */
  final_answer_span_id?: string
  final_answer_alt_span_ids?: string[]
  /** decomposition: the parts of the request and whether the trace addressed each. */
  sub_tasks?: Array<{ text: string; resolved: boolean }>
  coverage?: number
  /** decision_trace: decisions that must appear (decision kind and what was chosen). */
  decisions?: Array<{ decision: string; chosen: string }>
  /** optimization: findings that must appear (kind and span); an empty list means none may. */
  findings?: Array<{ kind: string; span_id: string }>
  /** sources_matrix: sources that must appear, with their verification level. */
  sources?: Array<{ url: string; verification_level: string }>
}

export interface Fixture {
  file: string
  name: string
  description: string
  labels: FixtureLabels
  /** A flat span array, or (v2) an OTLP/JSON envelope `{ resourceSpans: [...] }`: the ingest decoder takes both. */
  spans: unknown
}

export const loadFixture = (file: string): Fixture => ({ file, ...(JSON.parse(readFileSync(FIXTURE_DIR + file, 'utf8')) as Omit<Fixture, 'file'>) })

export function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map(loadFixture)
}

/** A fixture of a later set (v2, v3: the same schema) as the evaluation takes it, its file named under `dir`. */
export const asFixture =
  (dir: string) =>
  ({ file, name, description, labels, spans }: Fixture): Fixture => ({ file: `${dir}/${file}`, name, description, labels, spans })

/** The blind v2 sets (tests/fixtures/engines-v2, README there): `dev` to tune on, `heldout` only to report. */
export const loadV2 = (split: 'dev' | 'heldout'): Fixture[] => loadV2Fixtures(split).map(asFixture(split))

const prices = loadPriceTable()

/** A fixture's spans as an engine sees them: decoded by ingest, priced by the assembler. */
export function fixtureView(f: Pick<Fixture, 'spans' | 'file'>): TraceView {
  const decoded = decodeTraceRequest(f.spans, {
    principal: { org_id: '00000000-0000-4000-8000-0000000000e0', workspace_id: FIXTURE_WORKSPACE, project_id: 'fixtures' },
    receivedAtMs: Date.UTC(2026, 10, 1),
  })
  if (!decoded.ok) throw new Error(`${f.file}: ${decoded.message}`)
  if (decoded.rejected.length) throw new Error(`${f.file}: span rejected: ${decoded.rejected[0]!.reason}`)
  const rows = decoded.spans.map((s) => spanRow(s, { retentionHours: 720, costProvider: 'openai', prices }))
  const traceIds = new Set(rows.map((r) => r.trace_id))
  if (traceIds.size !== 1) throw new Error(`${f.file}: a fixture holds exactly one trace (found ${traceIds.size})`)
  return traceViewFromRows(FIXTURE_WORKSPACE, rows[0]!.trace_id, rows)
}
