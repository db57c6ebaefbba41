/**
 * Items by key, in the order of each key's first item; items whose key is
 * undefined are left out. One pass that appends (a spread per item, as in
 * `map.set(k, [...(map.get(k) ?? []), x])`, is quadratic in a group's size, and
 * a trace's groups are as large as its producer makes them).
 */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K | undefined): Map<K, T[]> {
  const out = new Map<K, T[]>()
  for (const item of items) {
    const k = keyOf(item)
    if (k === undefined) continue
    const group = out.get(k)
    if (group) group.push(item)
    else out.set(k, [item])
  }
  return out
}
