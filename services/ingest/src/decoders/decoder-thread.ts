/**
 * An ingest decoder thread (pool.ts starts it): runs each job it is sent and
 * transfers the buffer of values back. A job never throws here (runJob answers its
 * errors, and an answer that cannot be sent is answered as an error), so the thread
 * only ends when the pool terminates it or it crashes.
 */
import { parentPort } from 'node:worker_threads'
import { runJob } from './job.js'
import type { FromThread, ToThread } from './pool.js'

const port = parentPort!
port.on('message', ({ id, job }: ToThread) => {
  const answer = runJob(job)
  try {
    port.postMessage({ id, answer } satisfies FromThread, answer.ok ? [answer.prepared.values] : [])
  } catch (err) {
    port.postMessage({ id, answer: { ok: false, error: { status: 500, message: `the answer could not be sent: ${(err as Error).message}`, unexpected: true } } } satisfies FromThread)
  }
})
