/**
 * The OpenAPI description of each read-API route, next to the zod schemas the
 * route's handler validates with: a route file declares its docs with
 * describeRoute() and its handler parses with the same schema objects, so the
 * document is generated from the code that runs (openapi/document.ts) and cannot
 * drift from it. A test checks every route the app registers has a description.
 */
import type { z } from 'zod'
import type { RouteSpec } from '../access.js'

export interface RouteDoc {
  route: RouteSpec
  summary: string
  description?: string
  tags: string[]
  /** Path parameters beyond the organization/workspace ones the scope implies. */
  params?: z.AnyZodObject
  query?: z.AnyZodObject
  /** A JSON body; or, for uploads, the multipart form fields. */
  body?: z.ZodTypeAny
  bodyContentType?: 'application/json' | 'multipart/form-data'
  /** Success responses by status; errors are described once for all routes. */
  responses: Record<number, { description: string; schema?: z.ZodTypeAny }>
  /**
   * Error statuses the route answers beyond the ones every route shares (400, and
   * 401/403/404 when it needs credentials), e.g. [409, 422]; their body is the one
   * shared error schema.
   */
  errors?: number[]
  /** Defaults to the ROUTES key of `route`; needed only for a route outside ROUTES. */
  operationId?: string
  /** 'none': answered without credentials (login); default: an API key or JWT. */
  auth?: 'none'
}

const docs: RouteDoc[] = []

/** Registers a route's description and returns it, so the handler can use its schemas. */
export function describeRoute<D extends RouteDoc>(doc: D): D {
  docs.push(doc)
  return doc
}

export const routeDocs = (): readonly RouteDoc[] => docs
