/** A bounded map that forgets the least recently used entry first (Map keeps insertion order). */
export class Lru<V> {
  private readonly map = new Map<string, V>()
  hits = 0
  misses = 0
  constructor(readonly capacity: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key)
    if (v === undefined) {
      this.misses++
      return undefined
    }
    this.hits++
    this.map.delete(key)
    this.map.set(key, v)
    return v
  }

  set(key: string, value: V): void {
    this.map.delete(key)
    this.map.set(key, value)
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!)
  }

  clear(): void {
    this.map.clear()
  }

  get size(): number {
    return this.map.size
  }
}
