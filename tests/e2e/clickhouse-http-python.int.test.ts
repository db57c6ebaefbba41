/**
 * Python's clickhouse-connect (PyPI), a client nobody here wrote, against the
 * ClickHouse HTTP interface: its connect sequence (version, timezone,
 * system.settings, the Native protocol probe), server-side parameters, Native
 * (binary) inserts as svc, the analyst's READONLY refusals, a wrong password, and
 * gzip both ways. It runs in the Python test environment tests/support/python.ts
 * makes (services/sdk-python/requirements-test.txt lists it).
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ANALYST_PASSWORD, SVC_PASSWORD, startTestInterface, type TestInterface } from '@svc/clickhouse-http/test-support/interface'
import { REPO_ROOT } from '../support/process.js'
import { pythonVenv, run } from '../support/python.js'

let t: TestInterface
let python: string

beforeAll(async () => {
  ;[t, { python }] = await Promise.all([startTestInterface(), pythonVenv()])
}, 900_000)

afterAll(async () => {
  await t?.close()
})

describe('clickhouse-connect (Python) over the ClickHouse HTTP interface', () => {
  it('connects, inserts as svc, queries with parameters as the analyst, and gets ClickHouse\'s refusals', async () => {
    const port = new URL(t.url).port
    const r = await run(python, [join(REPO_ROOT, 'tests/e2e/python/clickhouse_connect_check.py'), port, SVC_PASSWORD, ANALYST_PASSWORD], { timeoutMs: 120_000 })
    expect(r.output).toContain('clickhouse-connect ok')
    expect(r.code).toBe(0)
  })
})
