/**
 * What a hostile request can make the read API do: never a 500, never more than
 * the documented limits, never a /metrics series per path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiHarness, type Harness } from './test-support/harness.js'

const ADMIN = `dr_${'a'.repeat(40)}`
const WS_PATH = '/v1/observ/orgs/acme/workspaces/agents'
let h: Harness

beforeAll(async () => {
  h = await apiHarness({ keys: { [ADMIN]: 'admin' } })
}, 60_000)
afterAll(() => h?.close())

const send = (method: string, path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  h.app.request(path, { method, body, headers: { 'content-type': 'application/json', 'x-svc-api-key': ADMIN, ...headers } })

/** JSON text of `levels` nested objects under `key`: JSON.stringify itself cannot write it. */
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)

describe('deeply nested JSON bodies', () => {
  const routes: Array<[string, string, (deep: string) => string]> = [
    ['PUT', '/v1/observ/orgs/acme/llm-credentials', (deep) => `{"provider":"openai","model_id":"gpt-4o","api_key":"sk-test-1234","provider_config":${deep}}`],
    ['PUT', `${WS_PATH}/alignment/policy`, (deep) => `{"description":"x","enabled":true,"extra":${deep}}`],
    ['PATCH', `${WS_PATH}/settings/capture-text`, (deep) => `{"capture_text":${deep}}`],
    ['PUT', `${WS_PATH}/cost-budget`, (deep) => `{"budgets":${deep}}`],
    ['POST', `${WS_PATH}/retention:preview`, (deep) => `{"hours":${deep}}`],
    ['POST', '/v1/auth/login', (deep) => `{"email":${deep},"password":"x"}`],
  ]

  it('a body nested 10,000 levels deep is a 400 on every JSON route', async () => {
    for (const [method, path, body] of routes) {
      const res = await send(method, path, body(deepObject(10_000)))
      expect(res.status, `${method} ${path}`).toBe(400)
      expect(await res.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/nested deeper than 32 levels/) })
    }
  })

  it('provider_config nested within the limit is stored', async () => {
    const res = await send('PUT', '/v1/observ/orgs/acme/llm-credentials', routes[0]![2](deepObject(20)))
    expect(res.status).toBe(200)
  })
})

describe('/metrics cardinality', () => {
  const requestSeries = async () => (await (await h.app.request('/metrics')).text()).split('\n').filter((l) => l.startsWith('svc_api_request_duration_seconds_count{')).map((l) => l.replace(/ \d+$/, ''))

  it('1,000 requests to random paths add a handful of request-duration series, labelled by route pattern', async () => {
    const before = new Set(await requestSeries())
    const random = (i: number) => `${i.toString(36)}-${Math.random().toString(36).slice(2)}`
    for (let i = 0; i < 1000; i++) {
      const path = [`/v1/${random(i)}`, `/v1/observ/orgs/${random(i)}/workspaces/${random(i)}/traces/${random(i)}`, `/${random(i)}`, `${WS_PATH}/traces/${random(i)}`][i % 4]!
      await h.app.request(path, { headers: i % 2 ? { 'x-svc-api-key': ADMIN } : {} })
    }
    const added = (await requestSeries()).filter((s) => !before.has(s))
    expect(added.length).toBeGreaterThan(0)
    expect(added.length).toBeLessThanOrEqual(4)
    expect(added).toContain('svc_api_request_duration_seconds_count{route="/v1/observ/orgs/:org/workspaces/:ws/traces/:trace_id",status="404"}')
    expect(added).toContain('svc_api_request_duration_seconds_count{route="unmatched",status="401"}')
  })
})
