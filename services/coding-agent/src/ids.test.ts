import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { attributeSetId } from './ids.js'

/** The definition of the ids: what every stored row was keyed by. */
const reference = (before: string[], attrs: Record<string, string>, after: string[]) =>
  createHash('sha256')
    .update(JSON.stringify([...before, Object.keys(attrs).sort().map((k) => [k, attrs[k]]), ...after]))
    .digest('hex')
    .slice(0, 32)

/** A small deterministic PRNG, so a failure reproduces. */
function rng(seed: number) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

// Printable ASCII, and everything JSON.stringify escapes or UTF-8 writes in several bytes.
const ALPHABET = ['a', 'Z', '0', '.', '_', ' ', '~', '"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', 'é', '€', '\u2028', '😀', '\ud800', '\udfff']

describe('attributeSetId', () => {
  it('is the id rows were stored under (pinned: these must never change)', () => {
    expect(attributeSetId(['ws-1', 'claude_code.token.usage', 'sum'], { type: 'input', 'session.id': 's1' }, ['1700000000000000000'])).toBe('caa2bcfdf2b0cbb9dc07786f3bea9884')
    expect(attributeSetId(['ws-1', 'otlp.logs', 'claude_code.user_prompt', '1700000000000000000'], { prompt: 'héllo "wörld"\n' }, ['claude_code.user_prompt'])).toBe('29593a5ab401ef81790b346219c7c2d7')
  })

  it('equals the JSON.stringify definition for any strings, plain or not', () => {
    const r = rng(0x1d5)
    const str = (plainOnly: boolean) => {
      let s = ''
      const n = Math.floor(r() * 12)
      for (let i = 0; i < n; i++) s += plainOnly ? ALPHABET[Math.floor(r() * 7)]! : ALPHABET[Math.floor(r() * ALPHABET.length)]!
      return s
    }
    for (let i = 0; i < 3000; i++) {
      // Half the cases entirely plain (the fast path), half with anything anywhere.
      const plain = i % 2 === 0
      const attrs: Record<string, string> = {}
      for (let k = Math.floor(r() * 6); k > 0; k--) attrs[str(plain)] = str(plain)
      const before = Array.from({ length: Math.floor(r() * 4) }, () => str(plain))
      const after = Array.from({ length: Math.floor(r() * 3) }, () => str(plain))
      expect(attributeSetId(before, attrs, after), JSON.stringify({ before, attrs, after })).toBe(reference(before, attrs, after))
    }
  })

  it('handles no attributes, no strings around them, and a text larger than its first buffer', () => {
    expect(attributeSetId([], {}, [])).toBe(reference([], {}, []))
    const big = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key.${i}`, 'v'.repeat(40)]))
    expect(attributeSetId(['w'], big, ['t'])).toBe(reference(['w'], big, ['t']))
    // After a large text, a small one is hashed alone (nothing left over from the last).
    expect(attributeSetId(['w'], { a: '1' }, [])).toBe(reference(['w'], { a: '1' }, []))
  })
})
