/**
 * Waiting in tests for something asynchronous, with a deadline: a condition that
 * never holds fails with its own message instead of polling until the test
 * runner's timeout (and leaving the poll and what it holds running after it).
 */
/** Polls until `check` returns a value (not undefined or false) or the deadline passes. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await check()
      if (v !== undefined && v !== false) return v
    } catch (err) {
      last = err
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
