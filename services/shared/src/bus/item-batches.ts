/**
 * What ingest puts in one bus record when a request's items share a key (the spans
 * of a trace: span-batch.ts). The bus, its client and the consumer runner cost about
 * as much per record as per item, so they do that work once per group, and the
 * fields a group's items share are encoded once.
 */
import type { OutgoingRecord } from './types.js'

/**
 * Encoded bytes a record of several items stays under: a Kafka broker refuses a
 * record past its message.max.bytes (1 MiB by default), and a request's items must
 * not become unstorable for having been put together. A record over it is split in
 * halves until each is under it or holds one item (which a record per item had too).
 */
export const MAX_RECORD_BYTES = 256 * 1024

/**
 * Items grouped (`same` of an item and a group's first), groups in the order of
 * their first item, items in theirs, at most `max` items a group. `keyOf` is a
 * string that items of one group share (a trace id), so an item is compared only
 * with the groups under its key, and no key is built of all the fields compared.
 */
export function groupsInOrder<T>(items: readonly T[], keyOf: (item: T) => string, same: (a: T, b: T) => boolean, max: number): T[][] {
  // Per key, the group still open for each distinct `same` class seen under it.
  const open = new Map<string, T[][]>()
  const out: T[][] = []
  for (const item of items) {
    const key = keyOf(item)
    let candidates = open.get(key)
    if (!candidates) open.set(key, (candidates = []))
    let i = 0
    while (i < candidates.length && !same(candidates[i]![0]!, item)) i++
    let group = candidates[i]
    if (!group || group.length >= max) {
      candidates[i] = group = []
      out.push(group)
    }
    group.push(item)
  }
  return out
}

/** A group's record(s), keyed `key`: `encode` of the whole group, or of its halves while over MAX_RECORD_BYTES. */
export function groupRecords<T>(group: T[], key: string, encode: (items: T[]) => Buffer, out: OutgoingRecord[] = []): OutgoingRecord[] {
  const value = encode(group)
  if (value.length <= MAX_RECORD_BYTES || group.length === 1) out.push({ key, value })
  else {
    const half = Math.ceil(group.length / 2)
    groupRecords(group.slice(0, half), key, encode, out)
    groupRecords(group.slice(half), key, encode, out)
  }
  return out
}
