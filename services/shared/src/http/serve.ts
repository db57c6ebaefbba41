import { serve, type ServerType } from '@hono/node-server'
import type { Logger } from 'pino'

export interface RunningServer {
  port: number
  close(): Promise<void>
}

/** Listens, and resolves with the bound port (0 picks a free one, which tests use). */
export function listen(app: Pick<Parameters<typeof serve>[0], 'fetch'>, opts: { host: string; port: number; log: Logger; name: string }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType
    try {
      server = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port }, (info) => {
        opts.log.info({ port: info.port, host: opts.host }, `${opts.name} listening`)
        resolve({
          port: info.port,
          close: () =>
            new Promise<void>((res) => {
              server.close(() => res())
              // Keep-alive sockets would hold close() open until they time out.
              ;(server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.()
            }),
        })
      })
      server.once('error', reject)
    } catch (err) {
      reject(err)
    }
  })
}
