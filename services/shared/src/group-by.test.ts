import { describe, expect, it } from 'vitest'
import { groupBy } from './group-by.js'

describe('groupBy', () => {
  it('groups in the order of first appearance and leaves out undefined keys', () => {
    const g = groupBy(['b1', 'a1', 'b2', 'x', 'a2'], (s) => (s === 'x' ? undefined : s[0]))
    expect([...g]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
    ])
  })

  it('keeps falsy keys other than undefined', () => {
    expect([...groupBy([1, 2, 3], (n) => (n % 2 ? '' : 0))]).toEqual([
      ['', [1, 3]],
      [0, [2]],
    ])
  })

  it('groups a hundred thousand items of one key', () => {
    expect(groupBy(Array.from({ length: 100_000 }, (_, i) => i), () => 'k').get('k')).toHaveLength(100_000)
  })
})
