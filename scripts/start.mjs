/**
 * `pnpm start` and `pnpm start:<service>`: runs a service as compiled JavaScript
 * instead of through tsx. Measured on the all-in-one (docs/architecture.md,
 * "Running compiled"): tsx's CLI keeps a second node process (~49 MB) and its loader
 * transpiles every module at each start, so `pnpm start` took ~1 s more CPU to
 * start and ~100 MB more resident memory than the bundle; under load the two run the
 * same code at the same cost per span.
 *
 * services/<service>/src/main.ts is bundled by esbuild into .svc-build/<service>-<hash>/
 * (git-ignored) when the files it was built from changed (a sha256 over their
 * contents, this script and the lockfile), then imported into this process. Our
 * workspace packages are bundled; every npm package stays in node_modules (native
 * ones such as chdb and onnxruntime-node cannot be bundled), imported by a path
 * relative to the bundle. Files the code reads at run time relative to its own
 * source (SQL migrations, Avro schemas, proto files, the price table, the console)
 * are still found there: each source file's `import.meta.url` is its own, while
 * `import.meta.dirname` is the bundle's (the model thread's entry sits beside it).
 *
 * Tests and development keep running the TypeScript directly (`node --import tsx`).
 */
// Node's globals imported, as ESLint lints this file as plain JavaScript without them.
import { Buffer } from 'node:buffer'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join, relative, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import process from 'node:process'
import { fileURLToPath, pathToFileURL, URL } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
// SVC_BUILD_DIR: elsewhere than .svc-build/ (tests build into a directory of their own).
const BUILD_DIR = process.env.SVC_BUILD_DIR ? resolve(process.env.SVC_BUILD_DIR) : join(ROOT, '.svc-build')
const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url))
// Worker threads load files of their own: the sentence model's (threaded-model.ts) and ingest's (prepare-pool.ts).
const MODEL_THREAD = 'services/engines/src/semantic/model-thread.ts'
const PREPARE_THREAD = 'services/ingest/src/prepare-thread.ts'
// Builds a service keeps besides its current one: a process started from an older
// build may still start its model thread from that build's directory.
const KEEP_OLDER = 3

/** Hash of the build's inputs (paths and contents), this script and the lockfile (the packages' versions). */
function fingerprintOf(inputs) {
  const h = createHash('sha256')
  for (const rel of [...new Set([...inputs, THIS_FILE, 'pnpm-lock.yaml'])].sort()) {
    const abs = join(ROOT, rel)
    h.update(rel + '\0')
    h.update(existsSync(abs) ? readFileSync(abs) : Buffer.from('missing'))
    h.update('\0')
  }
  return h.digest('hex')
}

/** The last build of this service ({ fingerprint, inputs, dir } in <service>.json), if its inputs are unchanged and its files are there; else null. */
function currentBuild(service) {
  try {
    const info = JSON.parse(readFileSync(join(BUILD_DIR, `${service}.json`), 'utf8'))
    if (!existsSync(join(BUILD_DIR, info.dir, 'main.mjs'))) return null
    return fingerprintOf(info.inputs) === info.fingerprint ? info : null
  } catch {
    return null
  }
}

/** Bundles into a fresh directory beside the others (so relative package paths hold), then renames it into place. */
async function build(service) {
  // esbuild is the console package's dependency (it also builds the web console).
  const esbuild = await import(createRequire(join(ROOT, 'services/console/package.json')).resolve('esbuild'))
  const tmp = join(BUILD_DIR, `${service}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  mkdirSync(BUILD_DIR, { recursive: true })
  const plugin = {
    name: 'svc-start',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('node:') || args.path.startsWith('@svc/') || args.pluginData === 'inner') return undefined
        const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'inner' })
        if (r.errors.length > 0 || r.external) return r
        return { path: relative(tmp, r.path).replaceAll('\\', '/'), external: true }
      })
      b.onLoad({ filter: /\.tsx?$/ }, async (args) => {
        if (args.path.includes('/node_modules/')) return undefined
        const source = await readFile(args.path, 'utf8')
        return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: args.path.endsWith('x') ? 'tsx' : 'ts' }
      })
    },
  }
  const result = await esbuild.build({
    entryPoints: { main: `services/${service}/src/main.ts`, 'model-thread': MODEL_THREAD, 'prepare-thread': PREPARE_THREAD },
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    outdir: tmp,
    outExtension: { '.js': '.mjs' },
    plugins: [plugin],
    metafile: true,
    logLevel: 'warning',
  })
  // Its service process would otherwise stay beside ours for the process's life.
  await esbuild.stop()
  const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.includes('node_modules'))
  const fingerprint = fingerprintOf(inputs)
  const dir = `${service}-${fingerprint.slice(0, 12)}`
  // A start of the same service building at the same moment may have put the same build in place first (and be running it).
  try {
    renameSync(tmp, join(BUILD_DIR, dir))
  } catch (err) {
    if (!existsSync(join(BUILD_DIR, dir, 'main.mjs'))) throw err
    rmSync(tmp, { recursive: true, force: true })
  }
  const infoFile = join(BUILD_DIR, `${service}.json`)
  writeFileSync(`${infoFile}.${process.pid}.tmp`, JSON.stringify({ fingerprint, inputs: [...new Set(inputs)].sort(), dir }, null, 2) + '\n')
  renameSync(`${infoFile}.${process.pid}.tmp`, infoFile)
  prune(service, dir)
  return { dir, files: inputs.length }
}

/** Removes this service's builds beyond the last few, and directories of builds that died half way. */
function prune(service, keep) {
  const names = readdirSync(BUILD_DIR)
  const age = (name) => statSync(join(BUILD_DIR, name)).mtimeMs
  const builds = names.filter((n) => n !== keep && new RegExp(`^${service}-[0-9a-f]{12}$`).test(n)).sort((a, b) => age(b) - age(a))
  for (const name of builds.slice(KEEP_OLDER)) rmSync(join(BUILD_DIR, name), { recursive: true, force: true })
  // Another start may be building into a .tmp directory right now.
  const hourAgo = Date.now() - 3600_000
  for (const name of names.filter((n) => n.startsWith(`${service}.`) && n.endsWith('.tmp') && age(n) < hourAgo)) rmSync(join(BUILD_DIR, name), { recursive: true, force: true })
}

const shown = (dir) => relative(process.cwd(), join(BUILD_DIR, dir))

/** The service's current build directory (under .svc-build/), building it first when its sources changed. */
async function ensureBuilt(service) {
  const t0 = performance.now()
  const current = currentBuild(service)
  if (current) {
    process.stderr.write(`start: ${service} from ${shown(current.dir)} (current)\n`)
    return current.dir
  }
  const built = await build(service)
  process.stderr.write(`start: built ${service} (${built.files} files) into ${shown(built.dir)} in ${Math.round(performance.now() - t0)} ms\n`)
  return built.dir
}

// `--build-only <service>...`: build (an image's build step), run nothing.
const buildOnly = process.argv[2] === '--build-only'
const services = process.argv.slice(buildOnly ? 3 : 2, buildOnly ? undefined : 3)
if (services.length === 0 || !services.every((s) => /^[a-z-]+$/.test(s) && existsSync(join(ROOT, 'services', s, 'src/main.ts')))) {
  process.stderr.write(`usage: node ${THIS_FILE} [--build-only] <service> (a directory under services/ with src/main.ts)\n`)
  process.exit(2)
}
const dirs = []
try {
  for (const service of services) dirs.push(await ensureBuilt(service))
} catch (err) {
  process.stderr.write(`start: could not build ${services.join(', ')}: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
}
if (!buildOnly) {
  // Stack traces point into the TypeScript, as under tsx.
  process.setSourceMapsEnabled(true)
  await import(pathToFileURL(join(BUILD_DIR, dirs[0] ?? '', 'main.mjs')).href)
}
