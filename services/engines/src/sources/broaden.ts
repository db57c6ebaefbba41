/**
 * broaden_sources: with the workspace setting on and a search credential, the
 * sources engine looks on the open web for what the agent's own sources did not
 * back. Each claim left unsupported is searched (a bounded number per trace), and a
 * result that supports it is added to the matrix as a `web` source at verification
 * level `web_corroborated`, with influence 0: the agent never used it, so it backs
 * nothing the agent said. Such sources feed no citations and no authority
 * feedback, since the learned prior is about the sources agents actually use.
 */
import { sourceDomain } from '@svc/shared/store/queries/sources'
import { webEvidence, type SearchClient } from '../crosscheck/index.js'
import type { ContentReliability, SourceEntry } from '../outputs.js'
import { judgeClaim } from '../reliability/support.js'

export const BROADEN_LIMITS = { maxSearches: 5, maxResults: 3 } as const

export async function broadenSources(
  reliability: ContentReliability,
  search: SearchClient,
  priorOf: (domain: string, kind: string) => number,
  known: ReadonlySet<string>,
): Promise<SourceEntry[]> {
  const open = reliability.claims.filter((c) => c.verdict === 'unsupported').slice(0, BROADEN_LIMITS.maxSearches)
  const found = new Map<string, SourceEntry>()
  for (const c of open) {
    const results = await search.search(c.claim, { maxResults: BROADEN_LIMITS.maxResults })
    const j = judgeClaim(c.claim, webEvidence(results))
    const url = j.evidence?.source
    if (j.verdict !== 'supported' || !url || known.has(url) || found.has(url)) continue
    const domain = sourceDomain(url)
    const short = c.claim.length > 80 ? `${c.claim.slice(0, 77)}...` : c.claim
    found.set(url, {
      url,
      kind: 'web',
      authority_score: priorOf(domain, 'web'),
      influence_score: 0,
      verification_level: 'web_corroborated',
      explainer: `Found on the open web backing "${short}", which the agent's own sources did not; the agent did not use it.`,
      domain,
    })
  }
  return [...found.values()]
}
