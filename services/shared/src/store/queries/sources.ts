/**
 * Sources a workspace's traces cite (clickhouse/0021_create_trace_sources_v1.sql):
 * the list the API serves and the learned priors the sources engine reads, and the
 * one write path, a trace's sources as its newest analysis saw them (citations and
 * the authority feedback of the sources engine together).
 */
import type { Store } from '../types.js'
import { tracesWithinRetention } from './retention.js'

export type SourceKind = 'internal_kb' | 'web' | 'tool' | 'citation'

export interface SourceCitation {
  workspace_id: string
  domain: string
  kind: SourceKind
  /** When the citing trace used it, epoch ms. */
  seen_at_ms: number
}

export interface SourceFeedback {
  workspace_id: string
  domain: string
  kind: SourceKind
  supported: number
  unsupported: number
}

/** The neutral-start prior: the mean of Beta(1 + supported, 1 + unsupported). */
export const authorityPrior = (supported: number, unsupported: number) => (1 + supported) / (2 + supported + unsupported)

/** The source of a document reference: a URL's host (without www.), else the reference itself (a KB id). */
export function sourceDomain(ref: string): string {
  try {
    const u = new URL(ref)
    if (u.hostname) return u.hostname.replace(/^www\./, '').toLowerCase()
  } catch {
    // not a URL: a knowledge-base id such as kb/refunds.md
  }
  return ref.split(/[/#?]/)[0]!.toLowerCase() || ref
}

/** One analysed trace's sources: the result's citations and feedback, by (domain, kind). */
export interface TraceSources {
  workspace_id: string
  trace_id: string
  /** The result's computed_at: a trace's newest analysis replaces its older ones. */
  analysed_at_ms: number
  expires_at_s: number
  sources: Array<{ domain: string; kind: SourceKind; citations: number; supported: number; unsupported: number; seen_at_ms: number }>
}

/** A trace's row from one analysis: each source it used once, with the verdicts on the claims it backed. */
export function traceSources(trace: Omit<TraceSources, 'sources'>, citations: SourceCitation[], feedback: SourceFeedback[]): TraceSources {
  const bySource = new Map<string, TraceSources['sources'][number]>()
  const entry = (domain: string, kind: SourceKind) => {
    const key = `${domain}\u0000${kind}`
    let e = bySource.get(key)
    if (!e) bySource.set(key, (e = { domain, kind, citations: 0, supported: 0, unsupported: 0, seen_at_ms: 0 }))
    return e
  }
  for (const c of citations) {
    const e = entry(c.domain, c.kind)
    e.citations = 1
    e.seen_at_ms = c.seen_at_ms
  }
  for (const f of feedback) {
    const e = entry(f.domain, f.kind)
    e.supported += f.supported
    e.unsupported += f.unsupported
  }
  return { ...trace, sources: [...bySource.values()] }
}

export async function recordTraceSources(store: Store, traces: TraceSources[]): Promise<void> {
  if (traces.length === 0) return
  await store.insert(
    'trace_sources_v1',
    traces.map((t) => ({
      workspace_id: t.workspace_id,
      trace_id: t.trace_id,
      analysed_at: String(t.analysed_at_ms),
      domains: t.sources.map((s) => s.domain),
      kinds: t.sources.map((s) => s.kind),
      citations: t.sources.map((s) => s.citations),
      supported: t.sources.map((s) => s.supported),
      unsupported: t.sources.map((s) => s.unsupported),
      last_seen: t.sources.map((s) => String(s.seen_at_ms)),
      expires_at: t.expires_at_s,
    })),
    { tag: 'sources.record' },
  )
}

/**
 * Each source of a workspace over its traces' newest analyses: how many traces used
 * it, the verdicts on the claims it backed, when last used; plus what sources_v1
 * counted before trace_sources_v1 existed (migration 0021). With a retention floor
 * (what the API serves), only traces inside the window count.
 */
export async function listSources(store: Store, workspaceId: string, limit = 1000, retentionFloorNs?: bigint) {
  const within = retentionFloorNs === undefined ? '' : `AND trace_id IN (${tracesWithinRetention('SELECT trace_id FROM trace_sources_v1 WHERE workspace_id = {ws:UUID}')})`
  const rows = await store.query<{ domain: string; kind: string; citations: number; supported: number; unsupported: number; last_seen_ms: number }>(
    `SELECT domain, kind, sum(c) AS citations, sum(s) AS supported, sum(u) AS unsupported, toUnixTimestamp64Milli(max(seen)) AS last_seen_ms
FROM
(
    SELECT domain, kind, toUInt64(c) AS c, toUInt64(s) AS s, toUInt64(u) AS u, seen
    FROM
    (
        SELECT argMax(tuple(domains, kinds, citations, supported, unsupported, last_seen), analysed_at) AS newest
        FROM trace_sources_v1
        WHERE workspace_id = {ws:UUID} ${within}
        GROUP BY trace_id
    )
    ARRAY JOIN newest.1 AS domain, newest.2 AS kind, newest.3 AS c, newest.4 AS s, newest.5 AS u, newest.6 AS seen
    UNION ALL
    SELECT domain, toString(kind), citations, supported, unsupported, last_seen
    FROM sources_v1
    WHERE workspace_id = {ws:UUID}
)
GROUP BY domain, kind
ORDER BY citations DESC, domain, kind
LIMIT {limit:UInt32}`,
    { ws: workspaceId, limit, floorNs: retentionFloorNs?.toString() ?? '0' },
    { tag: 'sources.list' },
  )
  return rows.map((r) => ({
    domain: r.domain,
    kind: r.kind,
    authority_prior: Math.round(authorityPrior(Number(r.supported), Number(r.unsupported)) * 1e6) / 1e6,
    citation_count: Number(r.citations),
    last_seen: Number(r.last_seen_ms) > 0 ? new Date(Number(r.last_seen_ms)).toISOString() : null,
  }))
}
