import { describe, expect, it } from 'vitest'
import { matchPath, safeNext, tracePath } from './paths'

describe('console paths', () => {
  it('matches patterns with parameters and a trailing rest', () => {
    expect(matchPath('/o/:org/w/:ws/traces/:trace_id', '/o/acme/w/agents/traces/abc')).toEqual({ org: 'acme', ws: 'agents', trace_id: 'abc' })
    expect(matchPath('/o/:org/w/:ws/traces', '/o/acme/w/agents/traces/')).toEqual({ org: 'acme', ws: 'agents' })
    expect(matchPath('/o/:org/w/:ws/traces', '/o/acme/w/agents')).toBeNull()
    expect(matchPath('/o/:org/w/:ws/traces', '/o/acme/w/agents/traces/x')).toBeNull()
    expect(matchPath('/o/:org/settings/*', '/o/acme/settings/keys/new')).toEqual({ org: 'acme', '*': 'keys/new' })
    expect(matchPath('/', '/')).toEqual({})
    expect(matchPath('/o/:org', '/o/a%20b')).toEqual({ org: 'a b' })
  })

  it('builds trace links with their query, skipping empty values', () => {
    expect(tracePath('acme', 'agents', 'ab12', { tab: 'reliability', span: undefined })).toBe('/o/acme/w/agents/traces/ab12?tab=reliability')
  })

  it('returns after sign-in only to a path of this origin', () => {
    expect(safeNext('/o/acme/w/agents/traces')).toBe('/o/acme/w/agents/traces')
    expect(safeNext('//evil.example/x')).toBe('/')
    expect(safeNext('https://evil.example/')).toBe('/')
    expect(safeNext('/\\evil.example')).toBe('/')
    expect(safeNext(null)).toBe('/')
  })
})
