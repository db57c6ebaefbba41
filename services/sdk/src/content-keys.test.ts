import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EVENT_VECTORS, KEPT_KEYS, TEXT_KEYS } from './content-keys.fixture.js'
import { isTextAttribute, isTextEventAttribute, stripTextAttributes, stripTextEventAttributes } from './content-keys.js'

describe('content keys', () => {
  it('recognises prompt and completion text of every convention, and nothing else (the shared vectors)', () => {
    for (const k of TEXT_KEYS) expect(isTextAttribute(k), k).toBe(true)
    for (const k of KEPT_KEYS) expect(isTextAttribute(k), JSON.stringify(k)).toBe(false)
    for (const v of EVENT_VECTORS) expect(isTextEventAttribute(v.event ?? undefined, v.key), JSON.stringify(v)).toBe(v.text)
  })

  it('is the very list the Python SDK ships (byte for byte)', () => {
    const here = readFileSync(new URL('./content-keys.json', import.meta.url))
    const python = readFileSync(new URL('../../sdk-python/src/svc_sdk/content_keys.json', import.meta.url))
    expect(python.equals(here), 'services/sdk-python/src/svc_sdk/content_keys.json differs: cp services/sdk/src/content-keys.json there').toBe(true)
  })

  it('strips a plain attribute map into a copy, and returns the map itself when it holds no text', () => {
    const attrs: Record<string, unknown> = Object.fromEntries([...TEXT_KEYS, ...KEPT_KEYS].map((k) => [k, `v:${k}`]))
    const out = stripTextAttributes(attrs)
    expect(Object.keys(out).sort()).toEqual([...KEPT_KEYS].sort())
    expect(Object.keys(attrs)).toHaveLength(TEXT_KEYS.length + KEPT_KEYS.length)
    const clean = { a: 1, 'gen_ai.request.model': 'gpt-4o' }
    expect(stripTextAttributes(clean)).toBe(clean)
  })

  it('treats every attribute of a GenAI text event as text, and only text keys of other events', () => {
    expect(stripTextEventAttributes('gen_ai.user.message', { content: 'secret', role: 'user' })).toEqual({})
    expect(stripTextEventAttributes('log', { 'input.value': 'secret', level: 'info' })).toEqual({ level: 'info' })
  })
})
