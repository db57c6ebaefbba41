/**
 * external_crosscheck: the claims of a trace's final output checked against the
 * open web through the organization's search credential. Each claim is one search;
 * the result snippets become evidence for the same judgeClaim the reliability
 * engine uses, so "supported" means the same thing in both places. Without a
 * search credential the engine stays in closed-knowledge-base mode: it judges the
 * claims against the trace's own evidence and says so, rather than pretending the
 * web agreed. Searches are bounded per trace (cost and rate limits of the
 * organization's search plan); claims past the bound get the closed judgment and
 * are marked as such.
 */
import type { TraceView } from '../trace-view.js'
import type { Evidence } from '../reliability/evidence.js'
import { judgeTrace } from '../reliability/judgement.js'
import { judgeClaim, type Judgement } from '../reliability/support.js'
import type { Embedder } from '../semantic/types.js'
import type { SearchClient, SearchResult } from './search.js'
import { mapBounded } from '@svc/shared/concurrency'

export type { SearchClient, SearchResult } from './search.js'
export { createHttpSearchClient } from './search.js'

export type CrosscheckMode = 'open_web' | 'closed_knowledge_base'

export interface CrosscheckClaim {
  claim: string
  verdict: 'supported' | 'unsupported' | 'contradicted'
  confidence: number
  /** The web page (open_web) or the trace's document source (trace_evidence) behind the verdict. */
  url: string | null
  /** What the claim was checked against. */
  basis: 'open_web' | 'trace_evidence'
}

export interface ExternalCrosscheck {
  trace_id: string
  mode: CrosscheckMode
  claims: CrosscheckClaim[]
  /** Claims checked against the open web (0 in closed mode). */
  checked: number
  note: string
}

export interface CrosscheckOptions {
  /** Claims searched per trace. */
  maxSearches: number
  /** Searches in flight at once. */
  concurrency: number
  /** Results asked for per search. */
  maxResults: number
  /** Claims reported per trace, searched or not. */
  maxClaims: number
}

export const CROSSCHECK_DEFAULTS: CrosscheckOptions = { maxSearches: 8, concurrency: 3, maxResults: 5, maxClaims: 40 }

/** Search results as evidence; web pages have no span in the trace, hence the empty span id. */
export const webEvidence = (results: SearchResult[]): Evidence[] =>
  results.map((r) => ({ span_id: '', text: r.content, source: r.url, kind: 'document' as const }))

function judged(claim: string, j: Judgement, basis: CrosscheckClaim['basis']): CrosscheckClaim {
  return { claim, verdict: j.verdict, confidence: j.confidence, url: j.evidence?.source ?? null, basis }
}

export async function externalCrosscheck(
  view: TraceView,
  search: SearchClient | null,
  options: Partial<CrosscheckOptions> = {},
  embedder: Embedder | null = null,
): Promise<ExternalCrosscheck> {
  const o = { ...CROSSCHECK_DEFAULTS, ...options }
  const mode: CrosscheckMode = search ? 'open_web' : 'closed_knowledge_base'
  // The claims and their judgement against the trace are the trace's one judgement (reliability/judgement.ts).
  const trace = await judgeTrace(view, embedder)
  const out = trace.answer
  const all = trace.claims.map((c) => c.claim)
  const own = (i: number) => judged(trace.claims[i]!.claim, trace.claims[i]!.judgement, 'trace_evidence')
  if (all.length === 0)
    return {
      trace_id: view.trace_id,
      mode,
      claims: [],
      checked: 0,
      note: out ? 'The final output makes no checkable claims.' : 'The trace has no final output; nothing to check.',
    }

  const claims = all.slice(0, o.maxClaims)
  const dropped = all.length - claims.length
  const droppedNote = dropped > 0 ? ` ${dropped} further claims were not reported (limit ${o.maxClaims} per trace).` : ''

  if (!search) {
    return {
      trace_id: view.trace_id,
      mode,
      claims: claims.map((_, i) => own(i)),
      checked: 0,
      note:
        'Closed-knowledge-base mode: the organization has no search credential, so nothing was checked on the open web; ' +
        `the ${claims.length} claims were judged against the trace's own evidence only.${droppedNote}`,
    }
  }

  const toSearch = claims.slice(0, o.maxSearches)
  const rest = claims.slice(toSearch.length)
  const web = await mapBounded(toSearch, o.concurrency, async (c) => judged(c, judgeClaim(c, webEvidence(await search.search(c, { maxResults: o.maxResults }))), 'open_web'))
  const closed = rest.map((_, i) => own(toSearch.length + i))
  const restNote = rest.length
    ? `; the other ${rest.length} (over the limit of ${o.maxSearches} searches per trace) were judged against the trace's own evidence only.`
    : '.'
  return {
    trace_id: view.trace_id,
    mode,
    claims: [...web, ...closed],
    checked: web.length,
    note: `Checked ${web.length} of ${claims.length} claims against the open web (up to ${o.maxResults} search results each)${restNote}${droppedNote}`,
  }
}

