import { describe, expect, it } from 'vitest'
import { takeRequest } from './kafka.js'

const call = (name: string, records: number, valueBytes: number, key: string | null = 'ws:trace') => ({
  name,
  records: Array.from({ length: records }, () => ({ key, value: Buffer.alloc(valueBytes) })),
})

describe('takeRequest (the Kafka producer gathering waiting produce calls into one request)', () => {
  it('takes every waiting call while the request stays under the broker default batch limit, in arrival order', () => {
    const waiting = [call('a', 100, 500), call('b', 200, 500), call('c', 1, 10)]
    expect(takeRequest(waiting).map((c) => c.name)).toEqual(['a', 'b', 'c'])
    expect(waiting).toEqual([])
  })

  it('counts each record with its framing, so many tiny records stop a request before their bare bytes would', () => {
    // 30,000 records of 10 value bytes and an 8-byte key: 540,000 bare bytes, ~1.5 MB once framed.
    const waiting = [call('a', 15_000, 10), call('b', 15_000, 10)]
    expect(takeRequest(waiting).map((c) => c.name)).toEqual(['a'])
    expect(takeRequest(waiting).map((c) => c.name)).toEqual(['b'])
  })

  it('sends a call too large to share a request alone, neither holding it back nor adding others to it', () => {
    const waiting = [call('small', 10, 1000), call('big', 1, 2_000_000, null), call('after', 10, 1000)]
    expect(takeRequest(waiting).map((c) => c.name)).toEqual(['small'])
    expect(takeRequest(waiting).map((c) => c.name)).toEqual(['big'])
    expect(takeRequest(waiting).map((c) => c.name)).toEqual(['after'])
    expect(takeRequest([])).toEqual([])
  })
})
