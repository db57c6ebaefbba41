import { pino, type DestinationStream, type Logger } from 'pino'

/** Paths that may carry secrets; tested in log.test.ts. */
export const REDACT_PATHS = [
  'req.headers["x-svc-api-key"]',
  'req.headers.authorization',
  'headers["x-svc-api-key"]',
  'headers.authorization',
  'password',
  '*.password',
  'api_key',
  '*.api_key',
  'access_token',
  '*.access_token',
]

export type { Logger }

export function createLogger(opts: { level?: string; name?: string } = {}, destination?: DestinationStream): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      name: opts.name,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination as DestinationStream,
  )
}

/** A connection URL fit for logs and error messages: its password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(unparseable URL)'
  }
}
