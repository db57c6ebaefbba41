/** `pnpm --filter @svc/console build` and the package's postinstall: builds the console into dist/ unless it is current. */
import { parseArgs } from 'node:util'
import { buildConsole, CONSOLE_DIST, isFresh } from './build.js'

const { values } = parseArgs({ options: { force: { type: 'boolean', default: false } } })
if (!values.force && isFresh()) {
  process.stdout.write(`console: ${CONSOLE_DIST} is current\n`)
} else {
  const t0 = performance.now()
  const info = await buildConsole()
  process.stdout.write(`console: built ${info.script} and ${info.stylesheet} into ${CONSOLE_DIST} in ${Math.round(performance.now() - t0)} ms\n`)
}
