import { describe, expect, it } from 'vitest'
import { literalHostReason, nonPublicReason } from './private-address.js'

describe('nonPublicReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.100.100.200', 'shared (CGNAT)'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['192.0.0.8', 'special-purpose'],
    ['198.18.0.1', 'special-purpose'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::', 'private'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
  ])('%s is %s', (ip, reason) => {
    expect(nonPublicReason(ip)).toBe(reason)
  })

  it.each(['1.1.1.1', '8.8.8.8', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.167.0.1', '169.253.0.1', '223.255.255.255', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::', 'fbff::1', 'fe00::1'])(
    '%s is public',
    (ip) => {
      expect(nonPublicReason(ip)).toBeNull()
    },
  )

  it('refuses what is not an address at all', () => {
    for (const bad of ['', 'localhost', '1.2.3', '1.2.3.256', '::ffff:1.2.3.4.5', ':::', '1::2::3', 'g::1']) expect(nonPublicReason(bad)).toBe('not an IP address')
  })
})

describe('literalHostReason', () => {
  it('judges IP literals in URLs, whatever way they are spelled', () => {
    expect(literalHostReason('http://127.0.0.1:8080/v1')).toBe('loopback')
    // The URL parser normalizes decimal, hex and short IPv4 forms before we look.
    expect(literalHostReason('http://2130706433/')).toBe('loopback')
    expect(literalHostReason('http://0x7f.1/')).toBe('loopback')
    expect(literalHostReason('http://[::1]:11434/v1')).toBe('loopback')
    expect(literalHostReason('http://[::ffff:169.254.169.254]/latest')).toBe('link-local')
    expect(literalHostReason('https://169.254.169.254/latest/meta-data')).toBe('link-local')
    expect(literalHostReason('http://0.0.0.0:8000')).toBe('unspecified')
    expect(literalHostReason('http://[fd12::1]/')).toBe('unique-local')
  })

  it('leaves names (checked when connecting) and public addresses alone', () => {
    expect(literalHostReason('https://api.openai.com/v1')).toBeNull()
    expect(literalHostReason('http://localhost:11434/v1')).toBeNull()
    expect(literalHostReason('https://8.8.8.8/')).toBeNull()
    expect(literalHostReason('https://[2606:4700::1]/')).toBeNull()
  })
})
