/** GET /openapi.json and GET /docs: public (outside /v1/*, so the authentication middleware never sees them). */
import { Hono } from 'hono'
import { openApiDocument } from './document.js'
import { renderReferencePage } from './reference-page.js'

export function openApiRoutes(): Hono {
  const app = new Hono()
  let page: string | undefined
  app.get('/openapi.json', (c) => c.json(openApiDocument()))
  app.get('/docs', (c) => c.html((page ??= renderReferencePage(openApiDocument()))))
  return app
}
