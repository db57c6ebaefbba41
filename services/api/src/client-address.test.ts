import { describe, expect, it } from 'vitest'
import { clientAddressFrom } from './client-address.js'

describe('clientAddressFrom', () => {
  it('is the socket address unless the operator trusts proxies in front', () => {
    expect(clientAddressFrom('10.0.0.1', '203.0.113.9', 0)).toBe('10.0.0.1')
    expect(clientAddressFrom(undefined, undefined, 0)).toBe('unknown')
  })

  it('with n trusted proxies, takes the address the outermost of them appended to X-Forwarded-For', () => {
    expect(clientAddressFrom('10.0.0.1', 'spoofed, 203.0.113.9', 1)).toBe('203.0.113.9')
    expect(clientAddressFrom('10.0.0.1', 'spoofed, 203.0.113.9, 10.0.0.7', 2)).toBe('203.0.113.9')
    expect(clientAddressFrom('10.0.0.1', '203.0.113.9', 3)).toBe('203.0.113.9')
    expect(clientAddressFrom('10.0.0.1', undefined, 1)).toBe('10.0.0.1')
    expect(clientAddressFrom('10.0.0.1', ' , ', 1)).toBe('10.0.0.1')
  })
})
