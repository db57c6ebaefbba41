/**
 * Builds the console (web/) into dist/ with esbuild: one hashed script and one
 * hashed stylesheet under dist/assets/, an index.html that loads them (no inline
 * script or style, so the content security policy can say script-src 'self'), and
 * dist/build-info.json with a fingerprint of everything the build read. The api
 * process calls ensureConsoleBuilt() at start: it builds only when dist/ is missing
 * or its fingerprint no longer matches the sources, so `pnpm start` after a pull
 * serves the new console, and an unchanged tree starts without building.
 *
 * Every file over 1 KiB also gets its gzip (level 9) and brotli copies beside it
 * (`<name>.gz`, `<name>.br`): compressing at build time keeps ~1.5 s of CPU off the
 * api process's start, which only reads them.
 *
 * Writes are atomic per file (write, rename) and assets are immutable by name, so a
 * second process building at the same moment, or a server reading dist/, never sees
 * a half-written file.
 */
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, gzipSync } from 'node:zlib'

const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url))
const WEB_DIR = join(PACKAGE_ROOT, 'web')
const ENTRY = join(WEB_DIR, 'main.tsx')
const REPO_ROOT = join(PACKAGE_ROOT, '../../')
/** Where the api process serves the console from. */
export const CONSOLE_DIST = join(PACKAGE_ROOT, 'dist')
const BUILD_INFO = 'build-info.json'

export interface BuildInfo {
  fingerprint: string
  /** Files the build read (relative to the repository), with the build script itself. */
  inputs: string[]
  script: string
  stylesheet: string
  built_at: string
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return listFiles(p)
    // Unit tests sit beside the code they test; they are not part of the bundle.
    return /\.test\.tsx?$/.test(e.name) ? [] : [p]
  })
}

/** Hash of the inputs' paths and contents: every web/ file, what else the last build read, and this file. */
function fingerprintOf(inputs: string[]): string {
  const h = createHash('sha256')
  for (const rel of [...new Set(inputs)].sort()) {
    const abs = join(REPO_ROOT, rel)
    h.update(rel + '\0')
    h.update(existsSync(abs) ? readFileSync(abs) : Buffer.from('missing'))
    h.update('\0')
  }
  return h.digest('hex')
}

const THIS_FILE = relative(REPO_ROOT, fileURLToPath(import.meta.url))
const PACKAGE_JSON = relative(REPO_ROOT, join(PACKAGE_ROOT, 'package.json'))
const webInputs = () => listFiles(WEB_DIR).map((p) => relative(REPO_ROOT, p))

function readBuildInfo(outDir: string): BuildInfo | null {
  try {
    return JSON.parse(readFileSync(join(outDir, BUILD_INFO), 'utf8')) as BuildInfo
  } catch {
    return null
  }
}

/** True when outDir holds a build of the current sources (and the files it names exist). */
export function isFresh(outDir: string = CONSOLE_DIST): boolean {
  const info = readBuildInfo(outDir)
  if (!info) return false
  if (!existsSync(join(outDir, 'index.html')) || !existsSync(join(outDir, 'assets', info.script)) || !existsSync(join(outDir, 'assets', info.stylesheet))) return false
  // New web/ files count even if the last build never read them.
  return fingerprintOf([...info.inputs, ...webInputs()]) === info.fingerprint
}

function writeAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  writeFileSync(tmp, data)
  renameSync(tmp, path)
}

/** The compressed copies a file gets beside it, as the api serves them (routes/console.ts). */
const COMPRESSED = [
  { suffix: '.br', encoding: 'br', compress: (b: Uint8Array) => brotliCompressSync(b) },
  { suffix: '.gz', encoding: 'gzip', compress: (b: Uint8Array) => gzipSync(b, { level: 9 }) },
] as const
const COMPRESS_OVER_BYTES = 1024

function writeWithCompressed(path: string, data: Uint8Array): void {
  writeAtomic(path, data)
  for (const c of COMPRESSED) {
    if (data.byteLength > COMPRESS_OVER_BYTES) writeAtomic(path + c.suffix, c.compress(data))
    else rmSync(path + c.suffix, { force: true })
  }
}

export function indexHtml(script: string, stylesheet: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>svc console</title>',
    // An empty icon: otherwise the browser asks for /favicon.ico and logs its 404.
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="/assets/${stylesheet}">`,
    `<script type="module" src="/assets/${script}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"></div>',
    '<noscript>The console needs JavaScript. The REST API is documented at <a href="/docs">/docs</a>.</noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

/** Bundles web/main.tsx into outDir (dist/ by default). */
export async function buildConsole(opts: { outDir?: string; minify?: boolean } = {}): Promise<BuildInfo> {
  const outDir = opts.outDir ?? CONSOLE_DIST
  const esbuild = await import('esbuild')
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: opts.minify ?? true,
    sourcemap: 'linked',
    entryNames: '[name]-[hash]',
    outdir: join(outDir, 'assets'),
    write: false,
    metafile: true,
    legalComments: 'linked',
    logLevel: 'silent',
    absWorkingDir: REPO_ROOT,
    // The bundle must never reach for Node: a stray import fails the build instead.
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  const files = result.outputFiles.map((f) => ({ name: relative(join(outDir, 'assets'), f.path), contents: f.contents }))
  const script = files.find((f) => f.name.endsWith('.js'))?.name
  const stylesheet = files.find((f) => f.name.endsWith('.css'))?.name
  if (!script || !stylesheet) throw new Error(`console build produced no ${script ? 'stylesheet' : 'script'}`)

  for (const f of files) writeWithCompressed(join(outDir, 'assets', f.name), f.contents)
  writeWithCompressed(join(outDir, 'index.html'), Buffer.from(indexHtml(script, stylesheet)))
  // Libraries change with package.json (their versions), not file by file.
  const inputs = [...Object.keys(result.metafile.inputs), ...webInputs(), THIS_FILE, PACKAGE_JSON].filter((p) => !p.includes('node_modules'))
  const info: BuildInfo = { fingerprint: fingerprintOf(inputs), inputs: [...new Set(inputs)].sort(), script, stylesheet, built_at: new Date().toISOString() }
  writeAtomic(join(outDir, BUILD_INFO), JSON.stringify(info, null, 2) + '\n')
  pruneOldAssets(join(outDir, 'assets'), new Set(files.flatMap((f) => [f.name, ...COMPRESSED.map((c) => f.name + c.suffix)])))
  return info
}

/** Removes earlier builds' assets, keeping the last hour's (a page loaded just before a rebuild may still ask for them). */
function pruneOldAssets(dir: string, keep: Set<string>): void {
  const cutoff = Date.now() - 3600_000
  for (const name of readdirSync(dir)) {
    if (keep.has(name)) continue
    const p = join(dir, name)
    try {
      if (statSync(p).mtimeMs < cutoff || name.endsWith('.tmp')) rmSync(p, { force: true })
    } catch {
      // another build removed it first
    }
  }
}

/**
 * Builds the console when dist/ is missing or stale. Returns where it is, or null
 * when it cannot be built (esbuild missing from a production install): the api
 * then serves the REST API alone and says so.
 */
export async function ensureConsoleBuilt(log: { info(o: object, m: string): void; warn(o: object, m: string): void }, outDir: string = CONSOLE_DIST): Promise<string | null> {
  if (isFresh(outDir)) return outDir
  try {
    const t0 = performance.now()
    const info = await buildConsole({ outDir })
    log.info({ script: info.script, ms: Math.round(performance.now() - t0) }, 'console built')
    return outDir
  } catch (err) {
    if (existsSync(join(outDir, 'index.html'))) {
      log.warn({ err }, 'could not rebuild the console; serving the previous build')
      return outDir
    }
    log.warn({ err }, 'could not build the console; serving the REST API only')
    return null
  }
}
