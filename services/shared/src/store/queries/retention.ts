import type { Store } from '../types.js'

export interface ExpiryPreview {
  spans: number
  traces: number
  /** Start of the oldest span that would go, ns since the epoch; null when nothing would. */
  oldestNs: string | null
}

/** What a cutoff would delete in a workspace: distinct spans and traces started before it. */
export async function previewExpiry(store: Store, workspaceId: string, cutoffMs: number): Promise<ExpiryPreview> {
  const [row] = await store.query<{ spans: number; traces: number; oldest: string }>(
    `SELECT uniqExact(trace_id, span_id) AS spans, uniqExact(trace_id) AS traces, toString(toUnixTimestamp64Nano(min(start_time))) AS oldest
FROM spans_v1
WHERE workspace_id = {ws:UUID} AND start_time < {cutoff:DateTime64(3)}`,
    { ws: workspaceId, cutoff: String(cutoffMs) },
    { tag: 'retention.preview' },
  )
  const spans = Number(row?.spans ?? 0)
  return { spans, traces: Number(row?.traces ?? 0), oldestNs: spans > 0 ? row!.oldest : null }
}

/**
 * Deletes a workspace's spans started before the cutoff, and the trace rows of
 * traces that started before it (lightweight DELETE: rows vanish from reads at
 * once, parts are rewritten by merges). TTL removes rows past their own expires_at
 * anyway; this catches up rows written under a longer window than today's.
 */
export async function deleteExpired(store: Store, workspaceId: string, cutoffMs: number): Promise<void> {
  const params = { ws: workspaceId, cutoff: String(cutoffMs) }
  await store.command(
    `DELETE FROM traces_v1 WHERE workspace_id = {ws:UUID} AND trace_id IN (
    SELECT trace_id FROM traces_v1 WHERE workspace_id = {ws:UUID} GROUP BY trace_id HAVING min(trace_start) < {cutoff:DateTime64(3)})`,
    params,
    { tag: 'retention.delete-traces' },
  )
  await store.command('DELETE FROM spans_v1 WHERE workspace_id = {ws:UUID} AND start_time < {cutoff:DateTime64(3)}', params, { tag: 'retention.delete-spans' })
}
