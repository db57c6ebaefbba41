import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { CORRUPT_FRAME, LoggedRecord, encodeFrames, frameOffset, frameSize } from './framing.js'

/**
 * One partition of one topic: an append-only sequence of segment files named by
 * the offset of their first record (like Kafka's). Appends are group-committed:
 * every record queued while the previous write+fdatasync was in flight goes out in
 * the next single write+fdatasync, so many concurrent producers share one fsync.
 * Readers only ever see records that are already durable.
 */
interface Segment {
  base: bigint
  path: string
  /** Bytes known durable (the whole file for closed segments). */
  size: number
  lastAppendMs: number
  reader?: FileHandle
}

interface PendingAppend {
  frames: Buffer
  lastOffset: bigint
  resolve(): void
  reject(err: Error): void
}

/** A reader's position: the next offset to read and where it sits on disk. */
export interface Cursor {
  offset: bigint
  segmentBase: bigint
  pos: number
}

const READ_CHUNK_BYTES = 16 << 20
const segmentName = (base: bigint) => `${base.toString().padStart(20, '0')}.log`

export class PartitionLog {
  private segments: Segment[] = []
  private writer!: FileHandle
  private nextOffset = 0n
  private durableEnd = 0n
  private queue: PendingAppend[] = []
  private flushing = false
  private closed = false
  private advanced!: Promise<void>
  private signalAdvance!: () => void

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
    private readonly origin: { topic: string; partition: number },
  ) {
    this.resetSignal()
  }

  /** Opens (or creates) the partition, truncating a torn tail left by a crash. Returns bytes dropped. */
  static async open(dir: string, segmentBytes: number, origin: { topic: string; partition: number }): Promise<{ log: PartitionLog; truncatedBytes: number }> {
    await mkdir(dir, { recursive: true })
    const log = new PartitionLog(dir, segmentBytes, origin)
    const files = (await readdir(dir)).filter((f) => /^\d{20}\.log$/.test(f)).sort()
    for (const f of files) {
      const path = join(dir, f)
      const st = await stat(path)
      log.segments.push({ base: BigInt(f.slice(0, 20)), path, size: st.size, lastAppendMs: st.mtimeMs })
    }
    let truncatedBytes = 0
    if (log.segments.length === 0) {
      await log.createSegment(0n)
    } else {
      const active = log.segments[log.segments.length - 1]!
      const { validBytes, next } = await scanSegment(active)
      truncatedBytes = active.size - validBytes
      log.writer = await open(active.path, 'r+')
      if (truncatedBytes > 0) {
        await log.writer.truncate(validBytes)
        await log.writer.datasync()
      }
      active.size = validBytes
      log.nextOffset = log.durableEnd = next
    }
    return { log, truncatedBytes }
  }

  get startOffset(): bigint {
    return this.segments[0]!.base
  }

  get endOffset(): bigint {
    return this.durableEnd
  }

  /** Queues records; resolves with their offsets once they are on disk and fdatasync'ed. */
  append(records: ReadonlyArray<{ key: Buffer | string | null; value: Buffer }>, now = Date.now()): Promise<bigint[]> {
    if (this.closed) return Promise.reject(new Error('partition log is closed'))
    const first = this.nextOffset
    const frames = encodeFrames(first, now, records)
    const offsets: bigint[] = new Array(records.length)
    for (let i = 0; i < records.length; i++) offsets[i] = first + BigInt(i)
    this.nextOffset = first + BigInt(records.length)
    return new Promise<bigint[]>((resolve, reject) => {
      this.queue.push({ frames, lastOffset: this.nextOffset - 1n, resolve: () => resolve(offsets), reject })
      if (!this.flushing) void this.flush()
    })
  }

  private async flush(): Promise<void> {
    this.flushing = true
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0)
      try {
        let active = this.segments[this.segments.length - 1]!
        if (active.size >= this.segmentBytes) active = await this.createSegment(this.durableEnd)
        const buf = batch.length === 1 ? batch[0]!.frames : Buffer.concat(batch.map((b) => b.frames))
        let written = 0
        while (written < buf.length) {
          const { bytesWritten } = await this.writer.write(buf, written, buf.length - written, active.size + written)
          written += bytesWritten
        }
        await this.writer.datasync()
        active.size += buf.length
        active.lastAppendMs = Date.now()
        this.durableEnd = batch[batch.length - 1]!.lastOffset + 1n
        for (const b of batch) b.resolve()
        this.notify()
      } catch (cause) {
        // Nothing after the durable end can be trusted: cut the file back and fail
        // everything queued, including records numbered after the failed batch.
        const err = new Error('embedded log write failed', { cause })
        const failed = [...batch, ...this.queue.splice(0)]
        this.nextOffset = this.durableEnd
        const active = this.segments[this.segments.length - 1]
        if (active) await this.writer.truncate(active.size).catch(() => {})
        for (const b of failed) b.reject(err)
      }
    }
    this.flushing = false
  }

  private async createSegment(base: bigint): Promise<Segment> {
    if (this.writer) await this.writer.close()
    const seg: Segment = { base, path: join(this.dir, segmentName(base)), size: 0, lastAppendMs: Date.now() }
    this.writer = await open(seg.path, 'wx+')
    await this.writer.datasync()
    // The new file's directory entry must be durable too, or a crash could lose the whole segment.
    const dirHandle = await open(this.dir, 'r')
    await dirHandle.sync().finally(() => dirHandle.close())
    this.segments.push(seg)
    return seg
  }

  /** Resolves at the next durable append (or close). Take it before checking for data to avoid lost wake-ups. */
  nextAdvance(): Promise<void> {
    return this.advanced
  }

  private resetSignal() {
    this.advanced = new Promise<void>((r) => (this.signalAdvance = r))
  }

  private notify() {
    const signal = this.signalAdvance
    this.resetSignal()
    signal()
  }

  /** A cursor at `offset`, clamped into [startOffset, endOffset]. */
  async seek(offset: bigint): Promise<Cursor> {
    if (offset <= this.startOffset) return { offset: this.startOffset, segmentBase: this.startOffset, pos: 0 }
    if (offset >= this.durableEnd) offset = this.durableEnd
    let seg = this.segments[0]!
    for (const s of this.segments) if (s.base <= offset) seg = s
    const cursor: Cursor = { offset: seg.base, segmentBase: seg.base, pos: 0 }
    while (cursor.offset < offset) {
      const records = await this.read(cursor, Number(offset - cursor.offset))
      if (records.length === 0) break
    }
    return cursor
  }

  /** Reads up to maxRecords durable records at the cursor and advances it. */
  async read(cursor: Cursor, maxRecords: number): Promise<LoggedRecord[]> {
    maxRecords = Math.max(1, maxRecords)
    const out: LoggedRecord[] = []
    while (out.length === 0 && cursor.offset < this.durableEnd) {
      let idx = this.segments.findIndex((s) => s.base === cursor.segmentBase)
      if (idx < 0) {
        // Retention removed the segment under the reader: continue at the oldest data.
        Object.assign(cursor, { offset: this.startOffset, segmentBase: this.startOffset, pos: 0 })
        idx = 0
      }
      const seg = this.segments[idx]!
      if (cursor.pos >= seg.size) {
        const next = this.segments[idx + 1]
        if (!next) return out
        Object.assign(cursor, { segmentBase: next.base, pos: 0 })
        continue
      }
      seg.reader ??= await open(seg.path, 'r')
      let want = Math.min(READ_CHUNK_BYTES, seg.size - cursor.pos)
      for (;;) {
        // A fresh buffer per read: its records are views of it, and it lives as long as they do.
        const buf = Buffer.allocUnsafe(want)
        const { bytesRead } = await seg.reader.read(buf, 0, want, cursor.pos)
        const chunk = { ...this.origin, buf: buf.subarray(0, bytesRead) }
        let p = 0
        let last = -1
        let size = 0
        while (out.length < maxRecords) {
          size = frameSize(chunk.buf, p)
          if (size < 0) break
          if (size === CORRUPT_FRAME) throw new Error(`corrupt record in ${seg.path} at byte ${cursor.pos + p}`)
          out.push(new LoggedRecord(chunk, p))
          last = p
          p += size
        }
        cursor.pos += p
        if (last >= 0) cursor.offset = frameOffset(chunk.buf, last) + 1n
        if (p > 0) break
        // One frame larger than the chunk: read exactly that frame.
        const needed = -size
        if (needed <= bytesRead || needed > seg.size - cursor.pos) throw new Error(`unreadable record in ${seg.path} at byte ${cursor.pos}`)
        want = needed
      }
    }
    return out
  }

  /** Deletes closed segments whose newest record is older than the retention. */
  async enforceRetention(retentionMs: number, now = Date.now()): Promise<number> {
    if (retentionMs < 0) return 0
    let removed = 0
    while (this.segments.length > 1 && now - this.segments[0]!.lastAppendMs > retentionMs) {
      await this.dropOldest()
      removed++
    }
    return removed
  }

  /** Bytes of the partition's segments on disk (what its appends have made durable). */
  get bytes(): number {
    let n = 0
    for (const s of this.segments) n += s.size
    return n
  }

  /**
   * The oldest segment when it is closed and every record in it is before `offset`
   * (every reader has passed it), so deleting it loses nothing; else null.
   */
  oldestConsumed(offset: bigint): { bytes: number; lastAppendMs: number } | null {
    const [oldest, next] = this.segments
    return oldest && next && next.base <= offset ? { bytes: oldest.size, lastAppendMs: oldest.lastAppendMs } : null
  }

  /** Deletes the oldest segment (never the active one); returns its bytes. */
  async dropOldest(): Promise<number> {
    if (this.segments.length < 2) return 0
    const seg = this.segments.shift()!
    await seg.reader?.close()
    await rm(seg.path, { force: true })
    return seg.size
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    while (this.flushing) await new Promise((r) => setTimeout(r, 5))
    this.notify()
    await this.writer.close()
    for (const s of this.segments) await s.reader?.close()
  }
}

/** Walks a segment's frames checking CRCs and offset continuity; returns where the good data ends. */
async function scanSegment(seg: Segment): Promise<{ validBytes: number; next: bigint }> {
  const fh = await open(seg.path, 'r')
  try {
    let pos = 0
    let next = seg.base
    let buf = Buffer.allocUnsafe(READ_CHUNK_BYTES)
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos)
      const view = buf.subarray(0, bytesRead)
      let p = 0
      let size = frameSize(view, p)
      while (size > 0 && frameOffset(view, p) === next) {
        next++
        p += size
        size = frameSize(view, p)
      }
      // A frame that is corrupt, out of sequence, or runs past the end of the file is the torn tail.
      if (size >= 0 || pos + p - size > seg.size) return { validBytes: pos + p, next }
      if (p === 0) buf = Buffer.allocUnsafe(Math.max(buf.length * 2, -size))
      pos += p
    }
  } finally {
    await fh.close()
  }
}
