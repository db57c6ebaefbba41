/**
 * Sources a workspace's traces cite (clickhouse/0010_create_sources_v1.sql): the
 * list the API serves and the two write paths, citations (from traces) and the
 * authority feedback of the sources engine.
 */
import type { Store } from '../types.js'

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

export async function recordCitations(store: Store, citations: SourceCitation[]): Promise<void> {
  if (citations.length === 0) return
  await store.insert(
    'sources_v1',
    citations.map((c) => ({ workspace_id: c.workspace_id, domain: c.domain, kind: c.kind, citations: 1, supported: 0, unsupported: 0, last_seen: String(c.seen_at_ms) })),
  )
}

export async function recordSourceFeedback(store: Store, feedback: SourceFeedback[]): Promise<void> {
  if (feedback.length === 0) return
  await store.insert(
    'sources_v1',
    // last_seen is left to its default (the epoch), which max() ignores.
    feedback.map((f) => ({ workspace_id: f.workspace_id, domain: f.domain, kind: f.kind, citations: 0, supported: f.supported, unsupported: f.unsupported })),
  )
}

export async function listSources(store: Store, workspaceId: string, limit = 1000) {
  const rows = await store.query<{ domain: string; kind: string; citations: number; supported: number; unsupported: number; last_seen_ms: number }>(
    `SELECT domain, kind, sum(citations) AS citations, sum(supported) AS supported, sum(unsupported) AS unsupported, toUnixTimestamp64Milli(max(last_seen)) AS last_seen_ms
FROM sources_v1 WHERE workspace_id = {ws:UUID}
GROUP BY domain, kind
ORDER BY citations DESC, domain, kind
LIMIT {limit:UInt32}`,
    { ws: workspaceId, limit },
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
