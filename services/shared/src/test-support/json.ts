/**
 * A JSON body as tests read it: their assertions check its shape at run time, so the
 * compiler is not asked to. The test code's one named `any` (see eslint.config.js);
 * code that serves requests narrows `unknown` (zod, typeof) instead.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on response shapes at run time
export type TestJson = any
