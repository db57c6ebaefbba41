import type { Store } from '../types.js'

/**
 * A workspace's spend since the start of the UTC day and month, from the hourly
 * usage roll-up (each span counted once, in the hour it started; the period starts
 * are whole hours, so the sums are exact). The roll-up outlives the workspace's
 * retention window by design, so a budget keeps counting spend whose spans a
 * shorter window has since deleted.
 */
export async function workspaceSpend(store: Store, workspaceId: string, starts: { day: Date; month: Date }): Promise<{ day: number; month: number }> {
  const [row] = await store.query<{ day: number; month: number }>(
    `SELECT sumIf(cost_usd, hour >= toStartOfHour({day:DateTime64(3)})) AS day, sum(cost_usd) AS month
FROM usage_hourly_v1
WHERE workspace_id = {ws:UUID} AND hour >= toStartOfHour({month:DateTime64(3)})`,
    { ws: workspaceId, day: String(starts.day.getTime()), month: String(starts.month.getTime()) },
    { tag: 'budgets.spend' },
  )
  return { day: Number(row?.day ?? 0), month: Number(row?.month ?? 0) }
}
