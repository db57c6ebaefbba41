/**
 * The latest point this consumer stored of each series: what the next batch's
 * cumulative points are converted against, without asking ClickHouse
 * (previousPoints) for series it has just written.
 *
 * A series is on one partition (its records are keyed by session), and a partition
 * has one reader in a group at a time. So while this consumer reads a partition
 * without a gap, nobody else can have stored a point of its series, and the point it
 * stored last is the latest there is. A batch that does not start where the last one
 * of its partition ended (the partition was away at another member and came back,
 * the group was rewound, a batch is replayed) forgets what is known of that
 * partition, and its series are looked up in ClickHouse again. A point whose time is
 * not after the remembered one (a replay, a late point) is looked up too.
 */
import type { ConsumedRecord } from '@svc/shared/bus/types'
import { compareDecimal, type MetricRow, type PrevPoint } from './map.js'

interface Remembered extends PrevPoint {
  partition: string
  epoch: number
  timeNs: string
}

const partitionOf = (r: Pick<ConsumedRecord, 'topic' | 'partition'>) => `${r.topic}:${r.partition}`

export class StoredPoints {
  private readonly series = new Map<string, Remembered>()
  /** Per partition: the offset its next batch must start at, and the epoch its remembered points must carry. */
  private readonly partitions = new Map<string, { next: bigint; epoch: number }>()

  constructor(private readonly maxSeries = 200_000) {}

  /** Before a batch's lookups: a partition whose batch starts elsewhere than where its last one ended is forgotten. */
  begin(records: readonly ConsumedRecord[]): void {
    for (const [partition, { first }] of offsetRanges(records)) {
      const p = this.partitions.get(partition)
      if (p && p.next !== first) {
        p.epoch++
        p.next = -1n
      }
    }
  }

  /** The series' latest stored point, when it is known and older than `timeNs` (the batch's first point of the series, read from `partition`). */
  previous(seriesId: string, partition: Pick<ConsumedRecord, 'topic' | 'partition'>, timeNs: string): PrevPoint | undefined {
    const s = this.series.get(seriesId)
    if (!s || s.partition !== partitionOf(partition) || s.epoch !== this.partitions.get(s.partition)?.epoch) return undefined
    return compareDecimal(s.timeNs, timeNs) < 0 ? { value: s.value, count: s.count } : undefined
  }

  /** After the batch is stored: each series' latest point in it, and where each partition continues. */
  stored(records: readonly ConsumedRecord[], points: ReadonlyArray<{ row: MetricRow; record: Pick<ConsumedRecord, 'topic' | 'partition'> }>): void {
    for (const [partition, { last }] of offsetRanges(records)) {
      const p = this.partitions.get(partition)
      if (p) p.next = last + 1n
      else this.partitions.set(partition, { next: last + 1n, epoch: 0 })
    }
    for (const { row, record } of points) {
      const partition = partitionOf(record)
      const epoch = this.partitions.get(partition)!.epoch
      const s = this.series.get(row.series_id)
      if (s && s.partition === partition && s.epoch === epoch && compareDecimal(s.timeNs, row.time_ns) >= 0) continue
      // Delete first, so the Map's order is the order of last use and the oldest goes first past the bound.
      this.series.delete(row.series_id)
      this.series.set(row.series_id, { partition, epoch, timeNs: row.time_ns, value: row.value, count: row.count })
    }
    for (const id of this.series.keys()) {
      if (this.series.size <= this.maxSeries) break
      this.series.delete(id)
    }
  }
}

function offsetRanges(records: readonly ConsumedRecord[]): Map<string, { first: bigint; last: bigint }> {
  const ranges = new Map<string, { first: bigint; last: bigint }>()
  for (const r of records) {
    const key = partitionOf(r)
    const offset = BigInt(r.offset)
    const range = ranges.get(key)
    if (!range) ranges.set(key, { first: offset, last: offset })
    else if (offset < range.first) range.first = offset
    else if (offset > range.last) range.last = offset
  }
  return ranges
}
