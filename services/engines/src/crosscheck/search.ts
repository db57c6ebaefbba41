/**
 * Web search for external_crosscheck, through the organization's search
 * credential. The wire format is Tavily's (POST {base}/search, Bearer key,
 * {results:[{url,title,content}]}), which several search gateways also accept, so
 * the base URL is configurable. Failures throw: a search outage should stall the
 * engine visibly, not quietly turn into "no evidence found".
 */
export interface SearchResult {
  url: string
  title: string
  /** The snippet the search service extracted for the query. */
  content: string
}

export interface SearchClient {
  search(query: string, opts: { maxResults: number; signal?: AbortSignal }): Promise<SearchResult[]>
}

export const DEFAULT_SEARCH_BASE = 'https://api.tavily.com'
export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000
/** Tavily rejects longer queries; a claim is cut rather than the call failing. */
export const MAX_QUERY_CHARS = 400

export class SearchError extends Error {
  override name = 'SearchError'
  constructor(
    message: string,
    /** null when the service could not be reached. */
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export interface HttpSearchOptions {
  apiKey: string
  /** Default https://api.tavily.com. */
  baseUrl?: string | null
  timeoutMs?: number
  fetch?: typeof fetch
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '')

export function createHttpSearchClient(opts: HttpSearchOptions): SearchClient {
  const base = (opts.baseUrl || DEFAULT_SEARCH_BASE).replace(/\/+$/, '')
  const timeoutMs = opts.timeoutMs && opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_SEARCH_TIMEOUT_MS
  const doFetch = opts.fetch ?? fetch

  return {
    async search(query, { maxResults, signal }) {
      const deadline = AbortSignal.timeout(timeoutMs)
      const abort = signal ? AbortSignal.any([signal, deadline]) : deadline
      let res: Response
      try {
        res = await doFetch(`${base}/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.apiKey}` },
          body: JSON.stringify({ query: query.slice(0, MAX_QUERY_CHARS), max_results: maxResults }),
          signal: abort,
        })
      } catch (e) {
        // fetch says only "fetch failed"; the reason (refused egress, DNS, connection) is its cause.
        const cause = (e as Error).cause
        const why = deadline.aborted ? `no answer within ${timeoutMs} ms` : cause instanceof Error ? cause.message : (e as Error).message
        throw new SearchError(`search service unreachable: ${why}`, null, { cause: e })
      }
      if (!res.ok) {
        const detail = (await res.text().catch(() => '')).slice(0, 300)
        throw new SearchError(`search service answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`, res.status)
      }
      let body: { results?: unknown } | null
      try {
        body = (await res.json()) as { results?: unknown } | null
      } catch (e) {
        throw new SearchError('search service answered with something that is not JSON', res.status, { cause: e })
      }
      const results: unknown[] = Array.isArray(body?.results) ? body.results : []
      return results
        .map((item) => {
          const r = item as { url?: unknown; title?: unknown; content?: unknown } | null
          return { url: text(r?.url), title: text(r?.title), content: text(r?.content) }
        })
        .filter((r) => r.url && r.content)
        .slice(0, maxResults)
    },
  }
}
