/**
 * A small layered layout for the decision-trace graph (a Sugiyama sketch): layers
 * by longest path from the sources (edges that would close a cycle are drawn but do
 * not count), order within a layer by the mean position of each node's neighbours
 * over a few sweeps, then coordinates on a grid. Good for the tens of decisions a
 * trace has; no library needed.
 */
export interface LaidNode { id: string; layer: number; order: number; x: number; y: number }
export interface LaidEdge { from: string; to: string; points: Array<[number, number]>; back: boolean }
export interface DagLayout { nodes: LaidNode[]; edges: LaidEdge[]; width: number; height: number }

export function layoutDag(
  ids: string[],
  edges: Array<{ from: string; to: string }>,
  box: { width: number; height: number; gapX: number; gapY: number } = { width: 200, height: 56, gapX: 40, gapY: 48 },
): DagLayout {
  const known = new Set(ids)
  const valid = edges.filter((e) => known.has(e.from) && known.has(e.to) && e.from !== e.to)
  const out = new Map<string, string[]>(ids.map((id) => [id, []]))
  for (const e of valid) out.get(e.from)!.push(e.to)

  // Back edges by depth-first search from each node in input order.
  const back = new Set<string>()
  const state = new Map<string, 1 | 2>()
  for (const root of ids) {
    if (state.has(root)) continue
    const stack: Array<{ id: string; i: number }> = [{ id: root, i: 0 }]
    state.set(root, 1)
    while (stack.length) {
      const top = stack[stack.length - 1]!
      const next = out.get(top.id)![top.i++]
      if (next === undefined) {
        state.set(top.id, 2)
        stack.pop()
      } else if (state.get(next) === 1) back.add(`${top.id}\u0000${next}`)
      else if (!state.has(next)) {
        state.set(next, 1)
        stack.push({ id: next, i: 0 })
      }
    }
  }
  const forward = valid.filter((e) => !back.has(`${e.from}\u0000${e.to}`))

  // Longest-path layering over the forward edges (Kahn's order).
  const indeg = new Map(ids.map((id) => [id, 0]))
  for (const e of forward) indeg.set(e.to, indeg.get(e.to)! + 1)
  const layer = new Map(ids.map((id) => [id, 0]))
  const queue = ids.filter((id) => indeg.get(id) === 0)
  for (let q = 0; q < queue.length; q++) {
    const id = queue[q]!
    for (const e of forward)
      if (e.from === id) {
        layer.set(e.to, Math.max(layer.get(e.to)!, layer.get(id)! + 1))
        indeg.set(e.to, indeg.get(e.to)! - 1)
        if (indeg.get(e.to) === 0) queue.push(e.to)
      }
  }

  const layers: string[][] = []
  for (const id of ids) (layers[layer.get(id)!] ??= []).push(id)
  const pos = new Map<string, number>()
  const index = () => layers.forEach((l) => l.forEach((id, i) => pos.set(id, i)))
  index()
  const neighbours = (id: string, up: boolean) => forward.filter((e) => (up ? e.to === id : e.from === id)).map((e) => (up ? e.from : e.to))
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)
  for (let sweep = 0; sweep < 4; sweep++) {
    const down = sweep % 2 === 0
    const order = down ? layers.map((_, i) => i).slice(1) : layers.map((_, i) => i).slice(0, -1).reverse()
    for (const li of order) {
      const l = layers[li] ?? []
      const key = new Map(l.map((id) => [id, mean(neighbours(id, down).map((n) => pos.get(n)!))]))
      // Nodes without neighbours on that side keep their place.
      l.sort((a, b) => (Number.isNaN(key.get(a)!) || Number.isNaN(key.get(b)!) ? pos.get(a)! - pos.get(b)! : key.get(a)! - key.get(b)! || pos.get(a)! - pos.get(b)!))
      index()
    }
  }

  const widest = Math.max(1, ...layers.map((l) => l?.length ?? 0))
  const width = widest * box.width + (widest - 1) * box.gapX
  const nodes: LaidNode[] = []
  const at = new Map<string, LaidNode>()
  layers.forEach((l, li) => {
    // Each layer centred under the widest.
    const offset = (width - (l.length * box.width + (l.length - 1) * box.gapX)) / 2
    l.forEach((id, i) => {
      const n = { id, layer: li, order: i, x: offset + i * (box.width + box.gapX), y: li * (box.height + box.gapY) }
      nodes.push(n)
      at.set(id, n)
    })
  })
  const laidEdges = valid.map((e) => {
    const a = at.get(e.from)!
    const b = at.get(e.to)!
    const isBack = back.has(`${e.from}\u0000${e.to}`)
    const points: Array<[number, number]> = isBack
      ? [[a.x + box.width, a.y + box.height / 2], [Math.max(a.x, b.x) + box.width + box.gapX / 2, (a.y + b.y) / 2 + box.height / 2], [b.x + box.width, b.y + box.height / 2]]
      : [[a.x + box.width / 2, a.y + box.height], [b.x + box.width / 2, b.y]]
    return { from: e.from, to: e.to, points, back: isBack }
  })
  return { nodes, edges: laidEdges, width: width + box.gapX, height: layers.length * (box.height + box.gapY) - box.gapY }
}
