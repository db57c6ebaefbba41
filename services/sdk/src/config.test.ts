import { afterEach, describe, expect, it } from 'vitest'
import { fetchSdkConfig, normalizeEndpoint } from './config.js'
import { fakeIngest, type FakeIngest } from './fake-ingest.fixture.js'

describe('fetchSdkConfig', () => {
  let f: FakeIngest | undefined
  afterEach(async () => {
    await f?.close()
    f = undefined
  })

  it('resolves the workspace with whoami, then reads its sdk-config with the key', async () => {
    f = await fakeIngest()
    expect(await fetchSdkConfig({ endpoint: f.url + '/', apiKey: 'dr_k' })).toEqual({ captureText: true, workspace: { id: 'ws-uuid', slug: 'agents' } })
    expect(f.requests).toEqual(['GET /v1/auth/whoami key=dr_k', 'GET /v1/workspaces/ws-uuid/sdk-config key=dr_k'])
    f.sdkConfig = { status: 200, body: '{"capture_text":false}' }
    expect((await fetchSdkConfig({ endpoint: f.url, apiKey: 'dr_k' })).captureText).toBe(false)
  })

  const failures: Array<[string, Partial<Pick<FakeIngest, 'whoami' | 'sdkConfig'>>]> = [
    ['sdk-config 500', { sdkConfig: { status: 500, body: '{"error":"boom"}' } }],
    ['sdk-config 403', { sdkConfig: { status: 403, body: '{}' } }],
    ['whoami 401 (bad key)', { whoami: { status: 401, body: '{}' } }],
    ['sdk-config not JSON', { sdkConfig: { status: 200, body: 'capture_text: true' } }],
    ['capture_text not a boolean', { sdkConfig: { status: 200, body: '{"capture_text":"true"}' } }],
    ['whoami without a workspace', { whoami: { status: 200, body: '{}' } }],
    ['sdk-config connection reset', { sdkConfig: 'reset' }],
  ]
  for (const [name, answers] of failures) {
    it(`fails closed: ${name} → capture_text false`, async () => {
      f = await fakeIngest(answers)
      const r = await fetchSdkConfig({ endpoint: f.url, apiKey: 'dr_k' })
      expect(r.captureText).toBe(false)
      expect(r.error).toBeTruthy()
    })
  }

  it('fails closed when sdk-config does not answer within the deadline', async () => {
    // The fake never answers: only the deadline ends the call (else the test's own timeout would).
    f = await fakeIngest({ sdkConfig: 'hang' })
    const r = await fetchSdkConfig({ endpoint: f.url, apiKey: 'dr_k', timeoutMs: 300 })
    expect(r).toMatchObject({ captureText: false, error: 'timed out after 300 ms' })
  })

  it('fails closed when nothing listens', async () => {
    f = await fakeIngest()
    const url = f.url
    await f.close()
    f = undefined
    expect(await fetchSdkConfig({ endpoint: url, apiKey: 'dr_k' })).toMatchObject({ captureText: false })
  })

  it('normalizes the endpoint', () => {
    expect(normalizeEndpoint('http://h:4318/')).toBe('http://h:4318')
    expect(normalizeEndpoint('http://h:4318/v1/traces')).toBe('http://h:4318')
    expect(normalizeEndpoint('https://x.example/ingest/v1/otlp/traces/')).toBe('https://x.example/ingest')
  })
})
