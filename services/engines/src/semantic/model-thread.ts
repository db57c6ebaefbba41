/**
 * The body of the sentence model's worker thread: the same in-thread SentenceModel
 * (one forward pass per text, one intra-op thread), loaded here so that its
 * synchronous `session.run` blocks this thread instead of the process's event loop.
 * No cache here: the main side keeps it (threaded-model.ts), so a cached text costs
 * no message.
 *
 * `close` lets the work already asked for finish, releases the session and ends the
 * thread. Terminating the thread instead while a forward pass runs aborts the whole
 * process (onnxruntime-node throws a C++ exception from the torn-down environment).
 */
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { SentenceModel } from './sentence-model.js'
import type { FromThread, ToThread } from './threaded-model.js'

const port = parentPort!
const send = (m: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer)

try {
  const model = await SentenceModel.load((workerData as { dir: string }).dir, { cacheSize: 0 })
  const working = new Set<Promise<void>>()
  port.on('message', (m: ToThread) => {
    if ('close' in m) {
      void Promise.allSettled(working)
        .then(() => model.release())
        .finally(() => port.close())
      return
    }
    const work = model.embed(m.texts).then(
      // The vectors' buffers move to the main thread rather than being copied.
      (vectors) => send({ id: m.id, vectors, threadId }, [...new Set(vectors.map((v) => v.buffer as ArrayBuffer))]),
      (err: unknown) => send({ id: m.id, error: err instanceof Error ? err.message : String(err) }),
    )
    working.add(work)
    void work.finally(() => working.delete(work))
  })
  send({ ready: true })
} catch (err) {
  send({ loadError: err instanceof Error ? err.message : String(err) })
}
