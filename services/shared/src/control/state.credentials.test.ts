/**
 * The fold of LLM credentials: a kept (sealed) key is never combined with another
 * provider or api_base, whatever order events arrive in — a replayed event, or the
 * loser of two racing PUTs, cannot send the key somewhere it was not entered for.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { llmContext, masterKeyFrom, openSecret, sealSecret } from './envelope.js'
import type { ControlEvent } from './events.js'
import { stableUuid } from './secrets.js'
import { ControlState } from './state.js'

const ORG = stableUuid('org:acme')
const master = masterKeyFrom(randomBytes(32))
const A = 'https://gateway.example/v1'
const B = 'https://attacker.example/v1'

let n = 0
const llmSet = (p: { provider?: string; model_id?: string; api_base: string | null; key?: string }): ControlEvent =>
  ({
    type: 'credential.llm_set',
    payload: {
      org_id: ORG,
      provider: p.provider ?? 'openai',
      model_id: p.model_id ?? 'gpt-4o-mini',
      api_base: p.api_base,
      provider_config: {},
      secret: p.key ? sealSecret(master, p.key, llmContext(ORG)) : null,
      api_key_last4: p.key ? p.key.slice(-4) : null,
    },
    actor: 'test',
    at_ms: ++n,
    event_id: String(n),
  }) as ControlEvent

const keyOf = (s: ControlState) => {
  const llm = s.credentialsOf(ORG).llm
  return llm?.secret ? openSecret(master, llm.secret, llmContext(ORG)) : null
}

describe('credential.llm_set fold', () => {
  it('ignores an event that keeps the stored key but names another api_base or provider', () => {
    const s = new ControlState()
    s.apply(llmSet({ api_base: A, key: 'sk-entered-for-A' }))
    const before = structuredClone(s.credentialsOf(ORG).llm)
    s.apply(llmSet({ api_base: B }))
    s.apply(llmSet({ api_base: null }))
    s.apply(llmSet({ api_base: A, provider: 'anthropic' }))
    expect(s.credentialsOf(ORG).llm).toEqual(before)
    expect(keyOf(s)).toBe('sk-entered-for-A')
  })

  it('keeps the key for the same provider and api_base (a new model, new provider_config)', () => {
    const s = new ControlState()
    s.apply(llmSet({ api_base: A, key: 'sk-entered-for-A' }))
    s.apply(llmSet({ api_base: A, model_id: 'gpt-4o' }))
    expect(s.credentialsOf(ORG).llm).toMatchObject({ api_base: A, model_id: 'gpt-4o', api_key_last4: 'or-A' })
    expect(keyOf(s)).toBe('sk-entered-for-A')
  })

  it('moves with a new key, and a credential without a key moves freely', () => {
    const s = new ControlState()
    s.apply(llmSet({ api_base: A, key: 'sk-entered-for-A' }))
    s.apply(llmSet({ api_base: B, key: 'sk-entered-for-B' }))
    expect(s.credentialsOf(ORG).llm).toMatchObject({ api_base: B, api_key_last4: 'or-B' })
    expect(keyOf(s)).toBe('sk-entered-for-B')

    const keyless = new ControlState()
    keyless.apply(llmSet({ provider: 'ollama', api_base: 'http://ollama.internal:11434/v1' }))
    keyless.apply(llmSet({ provider: 'ollama', api_base: 'https://ollama.example/v1' }))
    expect(keyless.credentialsOf(ORG).llm).toMatchObject({ api_base: 'https://ollama.example/v1', secret: null, api_key_last4: '' })
  })

  it('two racing PUTs (keep the key at A, move to B with a new key) never pair a key with the other endpoint, in either order', () => {
    const keepAtA = llmSet({ api_base: A, model_id: 'gpt-4o' })
    const moveToB = llmSet({ api_base: B, key: 'sk-entered-for-B' })
    for (const order of [[keepAtA, moveToB], [moveToB, keepAtA]]) {
      const s = new ControlState()
      s.apply(llmSet({ api_base: A, key: 'sk-entered-for-A' }))
      for (const e of order) s.apply(e)
      expect(s.credentialsOf(ORG).llm!.api_base).toBe(B)
      expect(keyOf(s)).toBe('sk-entered-for-B')
    }
  })

  it('a deleted credential leaves no key behind for a later keyless set', () => {
    const s = new ControlState()
    s.apply(llmSet({ api_base: A, key: 'sk-entered-for-A' }))
    s.apply({ type: 'credential.llm_deleted', payload: { org_id: ORG }, actor: 'test', at_ms: ++n, event_id: String(n) } as ControlEvent)
    s.apply(llmSet({ api_base: B }))
    expect(s.credentialsOf(ORG).llm).toMatchObject({ api_base: B, secret: null })
  })
})
