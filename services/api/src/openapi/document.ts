/**
 * The OpenAPI 3.1 document of the read API, generated from the route descriptions
 * (registry.ts: describeRoute() beside each handler's zod schemas) and the access
 * table (access.ts: path, method, minimum role, the scope that implies the path's
 * organization/workspace parameters). Zod schemas become JSON Schema with
 * zod-to-json-schema (draft-07 output, which OpenAPI 3.1's JSON Schema 2020-12
 * reads the same for the constructs used here; `$schema` is dropped). Served at
 * GET /openapi.json, rendered at GET /docs (reference-page.ts); document.test.ts
 * checks it covers every route the app registers.
 */
import { createRequire } from 'node:module'
import { z } from 'zod'
import { zodToJsonSchema } from 'zod-to-json-schema'
import { ROUTES, type RouteSpec, type Scope } from '../access.js'
import { routeDocs, type RouteDoc } from './registry.js'

export type JsonSchema = Record<string, unknown>

export interface OpenApiOperation {
  operationId: string
  summary: string
  description?: string
  tags: string[]
  security?: Array<Record<string, string[]>>
  'x-required-role'?: string
  parameters: OpenApiParameter[]
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> }
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> } | { $ref: string }>
}

export interface OpenApiParameter {
  name: string
  in: 'path' | 'query'
  required: boolean
  description?: string
  schema: JsonSchema
}

export interface OpenApiDocument {
  openapi: '3.1.0'
  info: { title: string; version: string; description: string }
  servers: Array<{ url: string; description: string }>
  tags: Array<{ name: string }>
  security: Array<Record<string, string[]>>
  paths: Record<string, Record<string, OpenApiOperation>>
  components: {
    securitySchemes: Record<string, JsonSchema>
    schemas: Record<string, JsonSchema>
    responses: Record<string, { description: string; content: Record<string, { schema: JsonSchema }> }>
  }
}

const TAG_ORDER = [
  'Identity', 'Organizations', 'Workspaces', 'API keys', 'Workspace settings', 'Engine settings', 'Credentials', 'Retention', 'Cost budgets',
  'Traces', 'Engine outputs', 'Usage', 'Sources', 'Drift', 'Health', 'Alignment', 'Coding agent', 'Service',
]

const version: string = createRequire(import.meta.url)('../../package.json').version

/** The body of every error response (shared/http/errors.ts: errorResponse). */
export const ErrorBody = z.object({
  error: z.string().describe('machine-readable code: bad_request, unauthorized, forbidden, not_found, conflict, unsupported_media_type, unprocessable_entity, internal'),
  message: z.string().describe('one sentence for people'),
  detail: z.unknown().optional().describe('structured: e.g. the accepted values of an invalid parameter, or the issues of an invalid body'),
})

/** Shared error responses: status -> component name and meaning. */
export const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'Bad request: a body that is not JSON or does not match its schema, or an invalid query parameter (`detail` says which and what is accepted)' },
  401: { name: 'Unauthorized', description: 'Missing, unknown or revoked credential, or an expired token' },
  403: { name: 'Forbidden', description: "Role below the route's minimum, or an API key of another workspace" },
  404: { name: 'NotFound', description: 'Unknown organization, workspace, member, key or trace (or no such route)' },
  409: { name: 'Conflict', description: 'Conflict with the current state (a taken slug, a stale confirm token, the last owner)' },
  410: { name: 'Gone', description: 'No longer usable (an expired invitation)' },
  415: { name: 'UnsupportedMediaType', description: 'Unsupported content type' },
  422: { name: 'UnprocessableEntity', description: 'Values outside the rules the spec lists as 422' },
  429: { name: 'TooManyRequests', description: 'Too many failed attempts: wait the seconds in Retry-After' },
  503: { name: 'Unavailable', description: 'Temporarily unavailable: retry after the seconds in Retry-After' },
}

export const SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-svc-api-key', description: 'A workspace API key (dr_ + 40 characters).' },
  bearerApiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'dr_ API key', description: 'The same API key as `Authorization: Bearer dr_...`.' },
  bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from POST /v1/auth/login.' },
} as const

const ANY_CREDENTIAL = Object.keys(SECURITY_SCHEMES).map((k) => ({ [k]: [] as string[] }))

/** JSON Schema of a zod schema, inline (no $ref), without `$schema`. */
export function jsonSchemaOf(schema: z.ZodTypeAny, io: 'input' | 'output'): JsonSchema {
  const out = zodToJsonSchema(schema, {
    target: 'jsonSchema7',
    $refStrategy: 'none',
    effectStrategy: 'input',
    pipeStrategy: io,
    // zod strips unknown keys of a plain object, so a request may carry them, and a
    // response may grow fields: only .strict() says "no other fields".
    removeAdditionalStrategy: 'strict',
  }) as JsonSchema
  delete out.$schema
  return tidy(out) as JsonSchema
}

/**
 * Tidies converted schemas: drops `additionalProperties: true`, and turns an
 * optional value that is not an object property (a query parameter's preprocess),
 * which comes out as anyOf [{ not: {} }, X], into X.
 */
function tidy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(tidy)
  if (!v || typeof v !== 'object') return v
  // additionalProperties: true is JSON Schema's default; left out to keep the document small.
  const o = Object.fromEntries(Object.entries(v).filter(([k, x]) => !(k === 'additionalProperties' && x === true)).map(([k, x]) => [k, tidy(x)])) as JsonSchema
  const alts = o.anyOf as JsonSchema[] | undefined
  if (alts?.length === 2) {
    const i = alts.findIndex((a) => Object.keys(a).length === 1 && a.not && typeof a.not === 'object' && Object.keys(a.not).length === 0)
    if (i >= 0) {
      const { anyOf: _, ...rest } = o
      return { ...alts[1 - i], ...rest }
    }
  }
  return o
}

/** Hono path syntax to OpenAPI: `:org` -> `{org}`; `:op{retention:preview}` (a literal matched as a one-value pattern) -> `retention:preview`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{([^}]*)\})?\??/g, (_, name: string, _p, pattern: string | undefined) =>
    pattern !== undefined && /^[A-Za-z0-9_.:-]+$/.test(pattern) ? pattern : `{${name}}`,
  )
}

const SCOPE_PARAMS: Record<Scope, OpenApiParameter[]> = {
  principal: [],
  'org-slug': [pathParam('org', 'organization slug')],
  'workspace-slug': [pathParam('org', 'organization slug'), pathParam('ws', 'workspace slug')],
  'org-id': [pathParam('org_id', 'organization UUID', 'uuid')],
  'workspace-id': [pathParam('ws_id', 'workspace UUID', 'uuid')],
}

function pathParam(name: string, description: string, format?: string): OpenApiParameter {
  return { name, in: 'path', required: true, description, schema: { type: 'string', ...(format ? { format } : {}) } }
}

function objectParams(schema: z.AnyZodObject, where: 'path' | 'query'): OpenApiParameter[] {
  return Object.entries(schema.shape as Record<string, z.ZodTypeAny>).map(([name, field]) => {
    const s = jsonSchemaOf(field, 'input')
    const description = field.description ?? (typeof s.description === 'string' ? s.description : undefined)
    delete s.description
    return { name, in: where, required: where === 'path' || !field.isOptional(), ...(description ? { description } : {}), schema: s }
  })
}

const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated'])

/** Multipart fields a zod schema cannot type (File, Blob: z.any, z.instanceof) come out untyped (annotations only): they are binary parts. */
function multipartSchema(schema: JsonSchema): JsonSchema {
  const props = schema.properties as Record<string, JsonSchema> | undefined
  if (!props) return schema
  const binary = { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' }
  const untyped = (v: JsonSchema) => Object.keys(v).every((k) => ANNOTATIONS.has(k))
  return { ...schema, properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, untyped(v) ? { ...binary, ...v } : v])) }
}

const routeKeys = new Map<RouteSpec, string>(Object.entries(ROUTES).map(([k, v]) => [v as RouteSpec, k]))

/** The ROUTES key of a route spec (by identity), or undefined for a route outside the table. */
export const routeKey = (route: RouteSpec): string | undefined => routeKeys.get(route)

function operationOf(doc: RouteDoc): OpenApiOperation {
  const { route } = doc
  const isPublic = doc.auth === 'none'
  const parameters = [...SCOPE_PARAMS[route.scope], ...(doc.params ? objectParams(doc.params, 'path') : []), ...(doc.query ? objectParams(doc.query, 'query') : [])]
  const responses: OpenApiOperation['responses'] = {}
  for (const [status, r] of Object.entries(doc.responses))
    responses[status] = { description: r.description, ...(r.schema ? { content: { 'application/json': { schema: jsonSchemaOf(r.schema, 'output') } } } : {}) }
  const errors = new Set([400, ...(isPublic ? [] : [401, 403, 404]), ...(doc.errors ?? [])])
  for (const status of [...errors].sort((a, b) => a - b)) {
    const e = ERROR_RESPONSES[status]
    if (e) responses[String(status)] = { $ref: `#/components/responses/${e.name}` }
  }
  let requestBody: OpenApiOperation['requestBody']
  if (doc.body) {
    const type = doc.bodyContentType ?? 'application/json'
    const schema = jsonSchemaOf(doc.body, 'input')
    requestBody = { required: true, content: { [type]: { schema: type === 'multipart/form-data' ? multipartSchema(schema) : schema } } }
  }
  return {
    operationId: doc.operationId ?? routeKey(route) ?? `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+/g, '_')}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    ...(isPublic ? { security: [] } : { 'x-required-role': route.role ?? 'any' }),
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses,
  }
}

/** Routes of the app outside the access table and the registry: /health, /metrics and this document itself. */
function builtinOperations(): Array<{ path: string; method: string; op: OpenApiOperation }> {
  const json = (schema: z.ZodTypeAny) => ({ 'application/json': { schema: jsonSchemaOf(schema, 'output') } })
  return [
    {
      path: '/health',
      method: 'get',
      op: { operationId: 'health', summary: 'Liveness', tags: ['Service'], security: [], parameters: [], responses: { 200: { description: 'The process answers', content: json(z.object({ status: z.literal('ok') })) } } },
    },
    {
      path: '/metrics',
      method: 'get',
      op: {
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description: 'Request durations by route pattern and status (`svc_api_request_duration_seconds`), ClickHouse and Node.js runtime metrics, in the Prometheus text format.',
        tags: ['Service'],
        security: [],
        parameters: [],
        responses: { 200: { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    {
      path: '/openapi.json',
      method: 'get',
      op: {
        operationId: 'openapi',
        summary: 'This OpenAPI 3.1 document',
        tags: ['Service'],
        security: [],
        parameters: [],
        responses: { 200: { description: 'The document', content: { 'application/json': { schema: { type: 'object', description: 'OpenAPI 3.1 document' } } } } },
      },
    },
    {
      path: '/docs',
      method: 'get',
      op: {
        operationId: 'docs',
        summary: 'The API reference page',
        description: 'Self-contained HTML rendered from this document (no scripts from elsewhere).',
        tags: ['Service'],
        security: [],
        parameters: [],
        responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
  ]
}

export function buildOpenApiDocument(docs: readonly RouteDoc[] = routeDocs()): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {}
  const add = (path: string, method: string, op: OpenApiOperation) => {
    const item = (paths[path] ??= {})
    if (item[method]) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} is described twice (${item[method].operationId}, ${op.operationId})`)
    item[method] = op
  }
  for (const doc of docs) add(openApiPath(doc.route.path), doc.route.method.toLowerCase(), operationOf(doc))
  for (const b of builtinOperations()) add(b.path, b.method, b.op)

  const tags: string[] = []
  for (const item of Object.values(paths)) for (const op of Object.values(item)) for (const t of op.tags) if (!tags.includes(t)) tags.push(t)
  // The order of docs/api.md; tags it does not know follow, alphabetically.
  const rank = (t: string) => (TAG_ORDER.includes(t) ? TAG_ORDER.indexOf(t) : TAG_ORDER.length)
  tags.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))

  const errorSchema = jsonSchemaOf(ErrorBody, 'output')
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent observability read API',
      version,
      description:
        'The read and management API (docs/api.md). Generated from the zod schemas the handlers validate with. ' +
        'Every error is `{ error, message, detail? }`. `x-required-role` is the minimum role (viewer < dev < admin < owner; `any`: any authenticated principal).',
    },
    servers: [{ url: '/', description: 'this server (the read API listens on :8080 by default)' }],
    tags: tags.map((name) => ({ name })),
    security: ANY_CREDENTIAL,
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES as unknown as Record<string, JsonSchema>,
      schemas: { Error: errorSchema },
      responses: Object.fromEntries(
        Object.values(ERROR_RESPONSES).map((e) => [e.name, { description: e.description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }]),
      ),
    },
  }
}

let cached: OpenApiDocument | undefined
/** Built once per process, on first use: every route module has registered its docs by then. */
export function openApiDocument(): OpenApiDocument {
  return (cached ??= buildOpenApiDocument())
}
