/** `pnpm svc <command>`: operator commands. Wires configuration, logging and the control state to the command. */
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { GRANT_USAGE, analystGrant, parseGrantArgs } from './analyst.js'
import { loadControlState } from './control-log.js'

async function main(argv: string[]): Promise<number> {
  if (argv[0] !== 'analyst' || argv[1] !== 'grant') {
    process.stderr.write(`${GRANT_USAGE}\n`)
    return 2
  }
  const opts = parseGrantArgs(argv.slice(2))
  if ('error' in opts) {
    process.stderr.write(`${opts.error}\n${GRANT_USAGE}\n`)
    return 2
  }
  const config = loadConfig()
  const log = createLogger({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL })
  const state = await loadControlState(config, log)
  return analystGrant(opts, {
    state,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    server: { user: config.CLICKHOUSE_USER, password: config.CLICKHOUSE_PASSWORD },
  })
}

process.exitCode = await main(process.argv.slice(2))
