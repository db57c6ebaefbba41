import type { Store } from '../types.js'

/**
 * A workspace's spend since the start of the UTC day and month, from traces_v1's
 * per-trace cost sums (each span counted once). Sums add across a trace's rows, so
 * no GROUP BY is needed; a trace's cost counts in the period its spans' insert block
 * started in.
 */
export async function workspaceSpend(store: Store, workspaceId: string, starts: { day: Date; month: Date }): Promise<{ day: number; month: number }> {
  const [row] = await store.query<{ day: number; month: number }>(
    `SELECT sumIf(cost_usd_total, trace_start >= {day:DateTime64(3)}) AS day, sum(cost_usd_total) AS month
FROM traces_v1
WHERE workspace_id = {ws:UUID} AND trace_start >= {month:DateTime64(3)}`,
    { ws: workspaceId, day: String(starts.day.getTime()), month: String(starts.month.getTime()) },
    { tag: 'budgets.spend' },
  )
  return { day: Number(row?.day ?? 0), month: Number(row?.month ?? 0) }
}
