import { describe, expect, it } from 'vitest'
import { boundedJson, jsonDepthExceeds, parseJson } from './json-limits.js'

const nestedArrays = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels))
const nestedObjects = (levels: number): unknown => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels))

describe('jsonDepthExceeds', () => {
  it('counts containers: a scalar is 0, [1] is 1', () => {
    expect(jsonDepthExceeds('x', 0)).toBe(false)
    expect(jsonDepthExceeds([1], 0)).toBe(true)
    expect(jsonDepthExceeds([1], 1)).toBe(false)
    expect(jsonDepthExceeds({ a: [{ b: 1 }] }, 3)).toBe(false)
    expect(jsonDepthExceeds({ a: [{ b: 1 }] }, 2)).toBe(true)
    expect(jsonDepthExceeds(nestedArrays(32), 32)).toBe(false)
    expect(jsonDepthExceeds(nestedArrays(33), 32)).toBe(true)
  })

  it('answers for a million levels without overflowing the stack', () => {
    expect(jsonDepthExceeds(nestedArrays(1_000_000), 32)).toBe(true)
    expect(jsonDepthExceeds(nestedObjects(100_000), 32)).toBe(true)
  })

  it('finds one deep branch among wide shallow ones', () => {
    const wide = Array.from({ length: 1000 }, () => ({ a: [1, 2] }))
    expect(jsonDepthExceeds(wide, 3)).toBe(false)
    expect(jsonDepthExceeds([...wide, nestedArrays(10)], 3)).toBe(true)
  })
})

describe('parseJson', () => {
  it('parses JSON and gives the fallback for text that is not JSON', () => {
    expect(parseJson('{"a": [1, null]}')).toEqual({ a: [1, null] })
    expect(parseJson('null', 'x')).toBeNull()
    expect(parseJson('not json')).toBeUndefined()
    expect(parseJson('not json', 'not json')).toBe('not json')
  })

  it('gives the fallback for JSON nested deeper than the bound, so no recursive walk sees it', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    expect(parseJson(deep, deep)).toBe(deep)
    expect(parseJson('['.repeat(32) + ']'.repeat(32))).toBeDefined()
    expect(parseJson('['.repeat(33) + ']'.repeat(33))).toBeUndefined()
  })
})

describe('boundedJson', () => {
  it('writes what JSON.stringify writes for ordinary values', () => {
    for (const v of [null, 1, -0.5, 'é "q" \ud800', true, [1, 'a', null, [2]], { a: 1, b: { c: [true] }, '': 'x' }, [], {}])
      expect(boundedJson(v, { maxDepth: 32, maxChars: 1000 })).toBe(JSON.stringify(v))
    expect(boundedJson({ a: undefined, b: NaN, c: [undefined, Infinity] }, { maxDepth: 32, maxChars: 1000 })).toBe(JSON.stringify({ a: undefined, b: NaN, c: [undefined, Infinity] }))
  })

  it('writes containers below maxDepth as a marker, at any depth', () => {
    expect(boundedJson([[[1]]], { maxDepth: 2, maxChars: 1000 })).toBe('[["[nested too deep]"]]')
    const text = boundedJson(nestedArrays(100_000), { maxDepth: 32, maxChars: 64 * 1024 })
    expect(JSON.parse(text)).toEqual(JSON.parse('['.repeat(32) + '"[nested too deep]"' + ']'.repeat(32)))
  })

  it('stops soon after maxChars, so a huge value is not written out', () => {
    const text = boundedJson(Array.from({ length: 100_000 }, (_, i) => ({ i, s: 'x'.repeat(20) })), { maxDepth: 32, maxChars: 100 })
    expect(text.length).toBeLessThan(200)
    expect(text.startsWith('[{"i":0,"s":"xxxx')).toBe(true)
  })
})
