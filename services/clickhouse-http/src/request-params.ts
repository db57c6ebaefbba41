/**
 * A request's URL parameters (and the X-ClickHouse-* headers that stand for some of
 * them) sorted as ClickHouse's HTTP handler sorts them: the query, the database,
 * the default format, the query id, `param_<name>` query parameters, parameters the
 * handler itself reads (credentials, sessions, compression, buffering), and every
 * other one a setting of the query.
 */
import { CODES, ClickHouseException, exception } from './errors.js'

export interface RequestParams {
  /** The `query` parameter ('' when absent). */
  query: string
  database: string | null
  defaultFormat: string | null
  queryId: string | null
  /** Settings to apply to the query, in the order given. */
  settings: Array<[string, string]>
  /** `param_<name>` values, as ClickHouse's text (escaped) form. */
  queryParams: Array<[string, string]>
  /** The HTTP interface's own: response compression, buffering the whole result. */
  http: { enableCompression: boolean; compressionLevel: number; waitEndOfQuery: boolean }
}

// Read by the handler, never settings (HTTPHandler.cpp's reserved names, and the credential and session ones).
const RESERVED = new Set([
  'query', 'database', 'default_format', 'query_id', 'user', 'password', 'quota_key', 'stacktrace', 'role', 'buffer_size',
  'session_id', 'session_timeout', 'session_check', 'close_session', 'client_protocol_version', 'compress', 'decompress',
])

// Settings that shape the HTTP exchange rather than the query; read here, not passed to the engine.
const HTTP_SETTINGS = new Set([
  'enable_http_compression', 'http_zlib_compression_level', 'wait_end_of_query', 'http_wait_end_of_query', 'send_progress_in_http_headers',
  'http_headers_progress_interval_ms', 'http_response_buffer_size', 'add_http_cors_header', 'cancel_http_readonly_queries_on_client_close',
  'http_write_exception_in_output_format', 'http_native_compression_disable_checksumming_on_decompress', 'http_response_headers',
])

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
const truthy = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false'

/** Sorts the URL's parameters; throws ClickHouse's exception for what it refuses. */
export function readRequestParams(url: URLSearchParams, headers: { get(name: string): string | undefined }): RequestParams {
  const out: RequestParams = {
    query: url.get('query') ?? '',
    // The headers win over the parameters, as in HTTPHandler.
    database: headers.get('x-clickhouse-database') || url.get('database') || null,
    defaultFormat: headers.get('x-clickhouse-format') || url.get('default_format') || null,
    queryId: url.get('query_id') || headers.get('x-clickhouse-query-id') || null,
    settings: [],
    queryParams: [],
    http: { enableCompression: false, compressionLevel: 3, waitEndOfQuery: false },
  }
  if (truthy(url.get('compress') ?? undefined) || truthy(url.get('decompress') ?? undefined))
    throw exception('NOT_IMPLEMENTED', "ClickHouse's native compression (compress=1, decompress=1) is not supported by this server: use HTTP compression (enable_http_compression=1, Content-Encoding)")
  for (const [key, value] of url) {
    if (key === '' || RESERVED.has(key)) continue
    if (key.startsWith('param_')) {
      // A name that is not an identifier can never be substituted; ClickHouse keeps it unused too.
      const name = key.slice('param_'.length)
      if (IDENTIFIER.test(name) && !out.queryParams.some(([n]) => n === name)) out.queryParams.push([name, value])
    } else if (HTTP_SETTINGS.has(key)) {
      if (key === 'enable_http_compression') out.http.enableCompression = truthy(value)
      else if (key === 'http_zlib_compression_level') out.http.compressionLevel = Math.min(9, Math.max(1, Number.parseInt(value, 10) || 3))
      else if (key === 'wait_end_of_query' || key === 'http_wait_end_of_query') out.http.waitEndOfQuery = truthy(value)
    } else if (IDENTIFIER.test(key)) out.settings.push([key, value])
    else throw new ClickHouseException(CODES.UNKNOWN_SETTING, `Unknown setting '${key}'`, 'UNKNOWN_SETTING')
  }
  return out
}

/** A ClickHouse string literal of `s`: quotes and backslashes escaped, as ClickHouse's quoteString. */
export function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

/**
 * The statements that set up a request's session before its query: a server's
 * defaults where chdb's differ, the user's
 * limits (the analyst's readonly=1 last of them, so that the engine itself refuses
 * any setting the request then tries to change), GET's readonly=2, the database,
 * the settings and the query parameters. Names are identifiers (checked above);
 * values are string literals, which ClickHouse parses by each setting's type.
 */
export function setupStatements(p: RequestParams, opts: { limits: Array<[string, string | number]>; readonlyGet: boolean }): string[] {
  // chdb starts from clickhouse-local's defaults; these two differ from a server's (which a client expects).
  const out: string[] = ['SET allow_introspection_functions = 0, implicit_select = 0']
  for (const [name, value] of opts.limits) out.push(`SET ${name} = ${typeof value === 'number' ? value : sqlString(value)}`)
  if (opts.readonlyGet) out.push('SET readonly = 2')
  for (const [name, value] of p.settings) out.push(`SET ${name} = ${sqlString(value)}`)
  for (const [name, value] of p.queryParams) out.push(`SET param_${name} = ${sqlString(value)}`)
  if (p.database !== null) out.push(`SET param___database = ${sqlString(p.database)}`, 'USE {__database:Identifier}')
  return out
}
