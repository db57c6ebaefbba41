import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * globalSetup of every project: the run's temporary files go under one directory of
 * its own (TMPDIR, which os.tmpdir() reads on every call and the test files' workers
 * and every process they start inherit), removed when the run ends. Test files make
 * hundreds of data directories (stores, embedded logs, brokers' logs, browser
 * profiles); each removed its own only sometimes, so runs left gigabytes behind.
 * A run that is killed leaves its directory, named after it, for `rm -rf`.
 */
export default function setup(): () => void {
  if (process.env.SVC_TEST_TMPDIR) return () => {}
  const root = mkdtempSync(join(tmpdir(), 'svc-test-run-'))
  process.env.SVC_TEST_TMPDIR = root
  process.env.TMPDIR = root
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 })
}
