import { mkdir, open, readdir, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Committed consumer-group offsets of the embedded log, one small JSON file per
 * group, replaced atomically (write temp, fsync, rename) so a crash leaves either
 * the old or the new offsets, never a torn file. Commits that arrive while a write
 * is in flight are coalesced into the next write.
 */
export class GroupOffsets {
  private readonly groups = new Map<string, Map<string, string>>()
  private readonly writes = new Map<string, Promise<void>>()
  private readonly dirty = new Set<string>()

  private constructor(private readonly dir: string) {}

  static async open(dir: string): Promise<GroupOffsets> {
    await mkdir(dir, { recursive: true })
    const store = new GroupOffsets(dir)
    for (const f of await readdir(dir)) {
      if (!f.endsWith('.json')) continue
      const offsets = JSON.parse(await readFile(join(dir, f), 'utf8')) as Record<string, string>
      store.groups.set(decodeURIComponent(f.slice(0, -5)), new Map(Object.entries(offsets)))
    }
    return store
  }

  get(group: string, topic: string, partition: number): bigint | undefined {
    const v = this.groups.get(group)?.get(`${topic}/${partition}`)
    return v === undefined ? undefined : BigInt(v)
  }

  /** Every group's committed offset on the partition, with the group (the readers that hold its records). */
  readers(topic: string, partition: number): Array<{ group: string; offset: bigint }> {
    const out: Array<{ group: string; offset: bigint }> = []
    for (const [group, offsets] of this.groups) {
      const v = offsets.get(`${topic}/${partition}`)
      if (v !== undefined) out.push({ group, offset: BigInt(v) })
    }
    return out
  }

  /** Records `next` as the group's next offset to read; resolves once that is durable. */
  async commit(group: string, topic: string, partition: number, next: bigint): Promise<void> {
    let offsets = this.groups.get(group)
    if (!offsets) this.groups.set(group, (offsets = new Map()))
    offsets.set(`${topic}/${partition}`, next.toString())
    this.dirty.add(group)
    // Wait for any write in flight, then make sure one write covers this commit.
    while (this.dirty.has(group)) {
      const inFlight = this.writes.get(group)
      if (inFlight) {
        await inFlight
        continue
      }
      const write = this.write(group).finally(() => this.writes.delete(group))
      this.writes.set(group, write)
      await write
    }
  }

  private async write(group: string): Promise<void> {
    this.dirty.delete(group)
    const file = join(this.dir, `${encodeURIComponent(group)}.json`)
    const tmp = `${file}.tmp`
    const fh = await open(tmp, 'w')
    try {
      await fh.writeFile(JSON.stringify(Object.fromEntries(this.groups.get(group)!)))
      await fh.datasync()
    } finally {
      await fh.close()
    }
    await rename(tmp, file)
  }
}
