/**
 * sources_matrix: every source the trace used or cited, how much of the answer it
 * backs, how far the answer agrees with it, and the workspace's learned authority
 * of its domain; plus the signals (citations, authority feedback) the worker
 * writes back so that authority is learned across traces.
 */
import { sourceDomain, type SourceCitation, type SourceFeedback, type SourceKind } from '@svc/shared/store/queries/sources'
import type { ContentReliability, SourceEntry, SourcesMatrix } from '../outputs.js'
import { evidenceOf, finalOutput } from '../reliability/evidence.js'
import { urlsIn } from '../reliability/text.js'
import type { TraceView, ViewSpan } from '../trace-view.js'

interface UsedSource {
  url: string
  kind: SourceKind
  span_id: string | null
  domain: string
}

// A retriever or tool that searches the public web rather than the workspace's own index.
const WEB_SEARCH = /web|search_engine|internet|tavily|serp|bing|google|brave|duckduckgo|exa_search|browse|fetch_url|fetch_page/i
const isHttp = (s: string) => /^https?:\/\//i.test(s)
/** URLs compare without a trailing slash or fragment and with a lower-case host. */
const urlKey = (s: string) => (isHttp(s) ? s.replace(/#.*$/, '').replace(/\/+$/, '').replace(/^(https?:\/\/[^/]+)/i, (h) => h.toLowerCase()) : s)

function isWebSearch(s: ViewSpan | undefined): boolean {
  if (!s) return false
  return WEB_SEARCH.test([s.name, ...s.content.toolCalls.map((t) => t.name), s.attributes['gen_ai.data_source.id'] ?? ''].join(' '))
}

/** Sources the trace read, in first-use order, then URLs only the answer cites. */
function usedSources(view: TraceView, answer: string): UsedSource[] {
  const spans = new Map(view.spans.map((s) => [s.span_id, s]))
  const out = new Map<string, UsedSource>()
  for (const e of evidenceOf(view)) {
    if (!e.source || out.has(urlKey(e.source))) continue
    const span = spans.get(e.span_id)
    let kind: SourceKind
    if (e.kind === 'tool_result') kind = e.source.startsWith('tool:') ? 'tool' : 'web'
    else kind = e.kind === 'document' && isHttp(e.source) && isWebSearch(span) ? 'web' : 'internal_kb'
    out.set(urlKey(e.source), { url: e.source, kind, span_id: e.span_id, domain: sourceDomain(e.source) })
  }
  for (const u of urlsIn(answer)) if (!out.has(urlKey(u))) out.set(urlKey(u), { url: u, kind: 'citation', span_id: null, domain: sourceDomain(u) })
  return [...out.values()]
}

/** The URLs each claim cites: inline, or through a numbered marker [n] resolved by the answer's reference list. */
function citedBy(answer: string, claim: string): string[] {
  const refs = new Map<string, string>()
  for (const m of answer.matchAll(/^\s*\[(\d+)\]:?\s*<?(https?:\/\/\S+?)>?\s*$/gim)) refs.set(m[1]!, m[2]!)
  const urls = urlsIn(claim)
  for (const m of claim.matchAll(/\[(\d+)\]/g)) if (refs.has(m[1]!)) urls.push(refs.get(m[1]!)!)
  return urls.map(urlKey)
}

const share = (n: number, d: number) => (d ? Math.round((n / d) * 1000) / 1000 : 0)

export function sourcesMatrix(view: TraceView, reliability: ContentReliability, priorOf: (domain: string, kind: string) => number): SourcesMatrix {
  const answer = finalOutput(view)?.text ?? ''
  const supported = reliability.claims.filter((c) => c.verdict === 'supported')
  const sources: SourceEntry[] = usedSources(view, answer).map((s) => {
    const key = urlKey(s.url)
    const backs = supported.filter((c) => c.source !== null && urlKey(c.source) === key).length
    const contradicts = reliability.claims.filter((c) => c.verdict === 'contradicted' && c.source !== null && urlKey(c.source) === key).length
    const cited = urlsIn(answer).some((u) => urlKey(u) === key)
    const level = contradicts ? 'contradicted' : backs ? 'verified' : s.kind === 'citation' ? 'cited_only' : 'unverified'
    const authority = Math.round(priorOf(s.domain, s.kind) * 1000) / 1000
    const origin =
      s.kind === 'citation' ? 'Cited in the answer but never retrieved or fetched' : s.kind === 'tool' ? `Returned by tool span ${s.span_id}` : `Read in span ${s.span_id}`
    // A source that contradicts the answer anywhere is flagged as such, even where it backs other claims.
    const verdict = [
      backs ? `backs ${backs} of ${supported.length} supported claim${supported.length === 1 ? '' : 's'}` : '',
      contradicts ? `contradicts ${contradicts} claim${contradicts === 1 ? '' : 's'} of the answer` : '',
    ].filter(Boolean).join(' and ') || 'backs no claim of the answer'
    return {
      url: s.url,
      kind: s.kind,
      authority_score: authority,
      influence_score: share(backs, supported.length),
      verification_level: level,
      explainer: `${origin}; ${verdict}${cited && s.kind !== 'citation' ? '; cited in the answer' : ''}; ${s.domain} authority ${authority.toFixed(2)}.`,
      domain: s.domain,
    }
  })
  return { trace_id: view.trace_id, sources }
}

/**
 * What the worker records for the workspace's source list: one citation per
 * distinct (domain, kind) the trace used, and authority feedback per domain.
 * A claim is attributed to the source of its evidence and to every URL it cites;
 * each attributed domain counts the claim as supported when the claim is
 * supported, and as unsupported when it is unsupported or contradicted. Summed
 * across traces, these counts give authorityPrior = (1 + supported) / (2 + supported + unsupported).
 */
export function sourceSignals(view: TraceView, reliability: ContentReliability, seenAtMs: number): { citations: SourceCitation[]; feedback: SourceFeedback[] } {
  const answer = finalOutput(view)?.text ?? ''
  const used = usedSources(view, answer)
  const byKey = new Map(used.map((s) => [urlKey(s.url), s]))
  const citations: SourceCitation[] = []
  const seen = new Set<string>()
  for (const s of used) {
    const k = `${s.domain}\u0000${s.kind}`
    if (seen.has(k)) continue
    seen.add(k)
    citations.push({ workspace_id: view.workspace_id, domain: s.domain, kind: s.kind, seen_at_ms: seenAtMs })
  }
  const counts = new Map<string, SourceFeedback>()
  for (const c of reliability.claims) {
    const keys = new Set<string>(citedBy(answer, c.claim))
    if (c.source) keys.add(urlKey(c.source))
    const domains = new Map<string, UsedSource>()
    for (const key of keys) {
      const s = byKey.get(key)
      if (s) domains.set(`${s.domain}\u0000${s.kind}`, s)
    }
    for (const [k, s] of domains) {
      const f = counts.get(k) ?? { workspace_id: view.workspace_id, domain: s.domain, kind: s.kind, supported: 0, unsupported: 0 }
      if (c.verdict === 'supported') f.supported++
      else f.unsupported++
      counts.set(k, f)
    }
  }
  return { citations, feedback: [...counts.values()] }
}
