import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig, type Config } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import type { Store } from '@svc/shared/store/types'
import { startClickhouseHttp } from '../service.js'

export const SVC_PASSWORD = 'svc-test-password'
export const ANALYST_PASSWORD = 'analyst-test-password'

export interface TestInterface {
  url: string
  config: Config
  store: Store
  /** Basic auth header values. */
  svcAuth: string
  analystAuth: string
  close(): Promise<void>
}

/** The interface on a fresh embedded store (its own data dir, port 0, known passwords); `env` overrides settings. */
export async function startTestInterface(env: Record<string, string> = {}): Promise<TestInterface> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-clickhouse-http-'))
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_CLICKHOUSE_HTTP_PORT: '0',
    SVC_CLICKHOUSE_SVC_PASSWORD: SVC_PASSWORD,
    SVC_CLICKHOUSE_ANALYST_PASSWORD: ANALYST_PASSWORD,
    SVC_QUIET_BOOTSTRAP: 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...env,
  })
  const log = createLogger({ level: config.LOG_LEVEL, name: 'test-clickhouse-http' })
  const store = await createStore(config, log)
  const http = await startClickhouseHttp({ config, log, store })
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
  return {
    url: `http://127.0.0.1:${http.port}`,
    config,
    store,
    svcAuth: basic('svc', SVC_PASSWORD),
    analystAuth: basic('analyst', ANALYST_PASSWORD),
    close: async () => {
      await http.close()
      await store.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
