/** The body of an ingest thread (prepare-pool.ts): each job prepared and answered, its records packed and transferred. */
import { parentPort } from 'node:worker_threads'
import { HttpError } from '@svc/shared/http/errors'
import { runPrepare, type PrepareJob } from './prepare.js'
import { pack, type FromThread } from './prepare-pool.js'

const port = parentPort!
port.on('message', ({ id, job }: { id: number; job: PrepareJob }) => {
  let answer: FromThread
  let transfer: ArrayBuffer[] = []
  try {
    const packed = pack(runPrepare(job))
    answer = { id, ok: packed.packed }
    transfer = packed.transfer
  } catch (err) {
    answer = { id, error: err instanceof HttpError ? { status: err.status, code: err.code, message: err.message, detail: err.detail } : { message: (err as Error).message ?? String(err) } }
  }
  try {
    port.postMessage(answer, transfer)
  } catch (err) {
    // An answer that cannot cross (nothing in a Prepared should fail to) fails its request, not the thread.
    port.postMessage({ id, error: { message: `the prepared request could not be sent back: ${(err as Error).message}` } } satisfies FromThread)
  }
})
