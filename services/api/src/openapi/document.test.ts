import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ROUTES, type RouteSpec } from '../access.js'
import { apiHarness, type Harness } from '../test-support/harness.js'
import { buildOpenApiDocument, openApiPath, routeKey, type OpenApiDocument } from './document.js'
import { routeDocs } from './registry.js'

let h: Harness
let doc: OpenApiDocument

beforeAll(async () => {
  h = await apiHarness({ keys: {} })
  doc = buildOpenApiDocument()
})
afterAll(() => h.close())

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

/** method + OpenAPI path of every handler the app registers (middleware `ALL` entries and HEAD left out). */
function registeredRoutes(): Set<string> {
  return new Set(h.app.routes.filter((r) => r.method !== 'ALL' && r.method !== 'HEAD').map((r) => `${r.method} ${openApiPath(r.path)}`))
}

function documentedOperations(): Set<string> {
  const out = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths)) for (const method of Object.keys(item)) if (METHODS.includes(method)) out.add(`${method.toUpperCase()} ${path}`)
  return out
}

describe('OpenAPI route coverage', () => {
  it('describes every route the app registers, and nothing else', () => {
    const registered = registeredRoutes()
    const documented = documentedOperations()
    const missing = [...registered].filter((r) => !documented.has(r)).sort()
    const extra = [...documented].filter((r) => !registered.has(r)).sort()
    const described = registered.size - missing.length
    console.log(`openapi: ${described}/${registered.size} registered routes described${missing.length ? `; without a description: ${missing.join(', ')}` : ''}`)
    expect(missing, 'registered routes without describeRoute()').toEqual([])
    expect(extra, 'documented operations the app does not register').toEqual([])
  })

  it('has a describeRoute() for every entry of the access table', () => {
    const described = new Set(routeDocs().map((d) => d.route))
    const missing = Object.entries(ROUTES)
      .filter(([, r]) => !described.has(r as RouteSpec))
      .map(([k]) => k)
    expect(missing).toEqual([])
  })

  it('describes each route once, with the access table role', () => {
    const keys = routeDocs().map((d) => routeKey(d.route) ?? d.operationId)
    expect(keys.length).toBe(new Set(keys).size)
    for (const d of routeDocs()) {
      const key = routeKey(d.route)
      if (!key) continue
      const op = doc.paths[openApiPath(d.route.path)]![d.route.method.toLowerCase()]!
      expect(op.operationId).toBe(key)
      expect(op['x-required-role']).toBe(d.route.role ?? 'any')
    }
  })
})

describe('OpenAPI document structure', () => {
  it('is OpenAPI 3.1 with info, servers and the three credentials', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(doc.servers.length).toBeGreaterThan(0)
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearerApiKey', 'bearerJwt'])
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-svc-api-key' })
  })

  it('resolves every $ref', () => {
    const refs: string[] = []
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk)
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x)
          else walk(x)
        }
    }
    walk(doc)
    expect(refs.length).toBeGreaterThan(0)
    for (const ref of new Set(refs)) {
      expect(ref.startsWith('#/'), ref).toBe(true)
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc)
      expect(target, `${ref} resolves`).toBeDefined()
    }
  })

  it('declares every path parameter, once, and nothing else in the path', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort()
      for (const [method, op] of Object.entries(item)) {
        const declared = op.parameters.filter((p) => p.in === 'path').map((p) => p.name).sort()
        expect(declared, `${method.toUpperCase()} ${path}`).toEqual(inPath)
        for (const p of op.parameters) expect(p.in === 'query' || p.required, `${p.name} of ${path}`).toBe(true)
        const names = op.parameters.map((p) => `${p.in}:${p.name}`)
        expect(names.length).toBe(new Set(names).size)
      }
    }
  })

  it('gives every operation an id, a summary, a tag and a success response; ids are unique', () => {
    const ids: string[] = []
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        ids.push(op.operationId)
        expect(op.summary, `${method} ${path}`).toBeTruthy()
        expect(op.tags.length).toBeGreaterThan(0)
        expect(Object.keys(op.responses).some((s) => s.startsWith('2'))).toBe(true)
        expect(path).not.toContain(':op')
      }
    expect(ids.length).toBe(new Set(ids).size)
  })

  it('converts Hono paths', () => {
    expect(openApiPath('/v1/observ/orgs/:org/workspaces/:ws/:op{retention:preview}')).toBe('/v1/observ/orgs/{org}/workspaces/{ws}/retention:preview')
    expect(openApiPath('/v1/orgs/:org_id/members/:user_id')).toBe('/v1/orgs/{org_id}/members/{user_id}')
    expect(openApiPath('/x/:id{[0-9]+}')).toBe('/x/{id}')
  })

  it('documents query parameters with their defaults and required flags', () => {
    const traces = doc.paths['/v1/observ/orgs/{org}/workspaces/{ws}/traces']!.get!
    const pageSize = traces.parameters.find((p) => p.name === 'page_size')!
    expect(pageSize).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', default: 50, minimum: 1, maximum: 500 } })
    expect(traces.parameters.find((p) => p.name === 'grade_min')!.schema.enum).toEqual(['D', 'C', 'C+', 'B-', 'B', 'B+', 'A-', 'A', 'A+'])
    const drill = doc.paths['/v1/observ/orgs/{org}/workspaces/{ws}/usage/latency/phase/traces']!.get!
    expect(drill.parameters.filter((p) => p.in === 'query' && p.required).map((p) => p.name).sort()).toEqual(['metric', 'phase'])
    expect(drill.responses['422']).toEqual({ $ref: '#/components/responses/UnprocessableEntity' })
  })

  it('types untyped multipart fields as binary parts', () => {
    const d = buildOpenApiDocument([
      {
        route: { method: 'POST', path: '/v1/observ/orgs/:org/workspaces/:ws/upload', role: 'admin', scope: 'workspace-slug' },
        operationId: 'upload',
        summary: 'Upload',
        tags: ['T'],
        body: z.object({ file: z.any().describe('the document'), note: z.string().optional() }),
        bodyContentType: 'multipart/form-data',
        responses: { 201: { description: 'ok', schema: z.object({ id: z.string() }) } },
      },
    ])
    const op = d.paths['/v1/observ/orgs/{org}/workspaces/{ws}/upload']!.post!
    const props = op.requestBody!.content['multipart/form-data']!.schema.properties as Record<string, Record<string, unknown>>
    expect(props.file).toMatchObject({ type: 'string', format: 'binary', description: 'the document' })
    expect(props.note).toEqual({ type: 'string' })
    expect(op['x-required-role']).toBe('admin')
  })

  it('documents request bodies and keeps login public', () => {
    const login = doc.paths['/v1/auth/login']!.post!
    expect(login.security).toEqual([])
    expect(login.requestBody!.content['application/json']!.schema).toMatchObject({ type: 'object', required: ['email', 'password'] })
    const put = doc.paths['/v1/observ/orgs/{org}/workspaces/{ws}/retention']!.put!
    expect(put['x-required-role']).toBe('admin')
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409', '422']))
  })
})

describe('serving', () => {
  it('GET /openapi.json answers without credentials', async () => {
    const r = await h.app.request('/openapi.json')
    expect(r.status).toBe(200)
    const body = (await r.json()) as OpenApiDocument
    expect(body.openapi).toBe('3.1.0')
    expect(Object.keys(body.paths).length).toBe(Object.keys(doc.paths).length)
  })

  it('GET /docs answers a self-contained HTML page without credentials', async () => {
    const r = await h.app.request('/docs')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toContain('text/html')
    const html = await r.text()
    expect(html).toContain('<!doctype html>')
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href="https?:/i)
    expect(html).toContain('/v1/observ/orgs/{org}/workspaces/{ws}/traces')
    expect(html).toContain('retention:preview')
  })

  it('still requires credentials under /v1', async () => {
    expect((await h.app.request('/v1/auth/me')).status).toBe(401)
  })
})
