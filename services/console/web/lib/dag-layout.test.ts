import { describe, expect, it } from 'vitest'
import { layoutDag } from './dag-layout'

describe('decision graph layout', () => {
  it('puts each node below everything that leads to it', () => {
    const { nodes, edges } = layoutDag(['a', 'b', 'c', 'd'], [
      { from: 'a', to: 'b' },
      { from: 'a', to: 'c' },
      { from: 'b', to: 'd' },
      { from: 'c', to: 'd' },
      { from: 'a', to: 'd' },
    ])
    const layer = Object.fromEntries(nodes.map((n) => [n.id, n.layer]))
    expect(layer).toEqual({ a: 0, b: 1, c: 1, d: 2 })
    for (const e of edges) expect(nodes.find((n) => n.id === e.to)!.y).toBeGreaterThan(nodes.find((n) => n.id === e.from)!.y)
  })

  it('draws a cycle without looping, and ignores edges to unknown nodes', () => {
    const { nodes, edges } = layoutDag(['a', 'b', 'c'], [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
      { from: 'c', to: 'zz' },
    ])
    expect(nodes.map((n) => n.layer)).toEqual([0, 1, 2])
    expect(edges.map((e) => `${e.from}>${e.to}:${e.back}`)).toEqual(['a>b:false', 'b>c:false', 'c>a:true'])
  })

  it('orders a layer to follow its parents, so edges do not cross needlessly', () => {
    // x1 under a, y1 under b: listing them the other way round must not cross the edges.
    const { nodes } = layoutDag(['a', 'b', 'y1', 'x1'], [
      { from: 'a', to: 'x1' },
      { from: 'b', to: 'y1' },
    ])
    const order = Object.fromEntries(nodes.map((n) => [n.id, n.order]))
    expect(order.x1! < order.y1!).toBe(order.a! < order.b!)
  })

  it('lays out a graph without edges in one row', () => {
    const l = layoutDag(['a', 'b'], [])
    expect(l.nodes.map((n) => n.layer)).toEqual([0, 0])
    expect(l.width).toBeGreaterThan(0)
  })
})
