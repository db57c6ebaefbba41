import { listSources, sourceDomain } from '@svc/shared/store/queries/sources'
import type { Store } from '@svc/shared/store/types'

/** Priors change slowly (one row per analysed trace); a short cache saves a query per batch. */
const TTL_MS = 10_000

/** A workspace's learned authority priors (listSources: each trace's newest analysis), neutral 0.5 for a domain never seen. */
export function workspacePriors(store: Store) {
  const cache = new Map<string, { at: number; lookup: (domain: string, kind: string) => number }>()
  return {
    async of(workspaceId: string): Promise<(domain: string, kind: string) => number> {
      const hit = cache.get(workspaceId)
      if (hit && Date.now() - hit.at < TTL_MS) return hit.lookup
      const rows = await listSources(store, workspaceId, 10_000)
      const byKey = new Map(rows.map((r) => [`${r.domain}\u0000${r.kind}`, r.authority_prior]))
      const byDomain = new Map<string, number>()
      for (const r of rows) if (!byDomain.has(r.domain)) byDomain.set(r.domain, r.authority_prior)
      const lookup = (domain: string, kind: string) => {
        const d = sourceDomain(domain)
        return byKey.get(`${d}\u0000${kind}`) ?? byDomain.get(d) ?? 0.5
      }
      cache.set(workspaceId, { at: Date.now(), lookup })
      return lookup
    },
  }
}
