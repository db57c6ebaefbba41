import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { pythonVenv, run, SDK_PYTHON_DIR } from '../support/python.js'

/**
 * svc-sdk for Python (services/sdk-python), tested by its own pytest suite in its
 * virtual environment (tests/support/python.ts): the OTLP/JSON exporter and the
 * fail-closed capture lookup against loopback servers, the text-key rule against the
 * vectors content-keys.test.ts runs too, the helpers, an agent instrumented with
 * OpenInference's OpenAI instrumentation sending through the SDK to `pnpm start`'s
 * process, and the README's example in a fresh virtual environment. Then mypy --strict.
 */
describe('svc-sdk for Python', () => {
  let python = ''
  let venv = ''
  beforeAll(async () => {
    ;({ python, dir: venv } = await pythonVenv())
  }, 900_000)

  it('pytest passes, with no test skipped', async () => {
    const r = await run(python, ['-m', 'pytest', SDK_PYTHON_DIR, '-p', 'no:cacheprovider', '-q'], {
      // SVC_NODE: the end-to-end tests start the service with this Node.js.
      env: { ...process.env, SVC_NODE: process.execPath, PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 600_000,
    })
    const summary = r.output.trim().split('\n').at(-1) ?? ''
    expect(r.code, r.output).toBe(0)
    expect(summary, r.output).toMatch(/^\d+ passed in /)
    process.stdout.write(`pytest (services/sdk-python): ${summary}\n`)
  }, 600_000)

  it('mypy --strict finds nothing in the package', async () => {
    const r = await run(python, ['-m', 'mypy', '--cache-dir', join(venv, 'mypy-cache')], { cwd: SDK_PYTHON_DIR, timeoutMs: 300_000 })
    expect(r.code, r.output).toBe(0)
  }, 300_000)
})
