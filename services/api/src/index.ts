export { createApiApp, type ApiAppDeps } from './app.js'
export { startApi, type ApiDeps } from './service.js'
export { ROUTES, type RouteSpec } from './access.js'
