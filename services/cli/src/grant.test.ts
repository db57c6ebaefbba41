import { createServer, type IncomingMessage } from 'node:http'
import { mkdtempSync, rmSync, statSync, appendFileSync, readdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { ControlPlane } from '@svc/shared/control/control-plane'
import { ControlState } from '@svc/shared/control/state'
import type { ControlEvent } from '@svc/shared/control/events'
import { createLogger } from '@svc/shared/log'
import { createStore, type Store } from '@svc/shared/store/index'
import { ANALYTICS_VIEWS } from '@svc/shared/store/analytics'
import { analystGrant, parseGrantArgs, resolveWorkspace, type GrantOptions } from './analyst.js'
import { readEmbeddedControlState } from './control-log.js'
import { analystUserName, grantStatements, passwordHash, quoteIdentifier, quoteString } from './grant.js'

const log = createLogger({ level: 'silent' })
let dir: string
let store: Store

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cli-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: join(dir, 'chdb') }), log)
})

afterAll(async () => {
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** ClickHouse's own parser: formatQuery fails on anything that is not one valid statement. */
const format = async (sql: string) => (await store.query<{ f: string }>('SELECT formatQuery({q:String}) AS f', { q: sql }))[0]!.f

const HOSTILE = [
  'analyst_acme_prod',
  "o'brien",
  'back`tick',
  'semi; DROP TABLE spans_v1; --',
  "x' IDENTIFIED WITH no_password --",
  'back\\slash\\',
  'ünïcødé 名前',
  '`; GRANT ALL ON *.* TO `eve',
]

describe('grant statements', () => {
  const WS = '0b000000-0000-4000-8000-000000000001'

  it('one settings profile, the user with a salted hash, a policy per analytics view, SELECT on analytics.* only', () => {
    const s = grantStatements({ user: 'analyst_acme_prod', workspaceId: WS, password: { hash: 'ab'.repeat(32), salt: 'cd'.repeat(16) } })
    expect(s).toHaveLength(2 + ANALYTICS_VIEWS.length + 1)
    expect(s[0]).toMatch(/^CREATE SETTINGS PROFILE IF NOT EXISTS `svc_analyst` SETTINGS readonly = 1,/)
    expect(s[1]).toBe(`CREATE USER OR REPLACE \`analyst_acme_prod\` IDENTIFIED WITH sha256_hash BY '${'ab'.repeat(32)}' SALT '${'cd'.repeat(16)}' DEFAULT DATABASE analytics SETTINGS PROFILE 'svc_analyst'`)
    expect(s.slice(2, -1)).toEqual(ANALYTICS_VIEWS.map((v) => `CREATE ROW POLICY OR REPLACE \`analyst_acme_prod_${WS}\` ON analytics.\`${v}\` FOR SELECT USING workspace_id = '${WS}' TO \`analyst_acme_prod\``))
    expect(s.at(-1)).toBe('GRANT SELECT ON analytics.* TO `analyst_acme_prod`')
  })

  for (const name of HOSTILE) {
    it(`parses as one statement each, the name intact: ${JSON.stringify(name)}`, async () => {
      const statements = grantStatements({ user: name, workspaceId: WS, password: passwordHash("pa'ss\\word`") })
      for (const sql of statements) {
        const formatted = await format(sql)
        // Parsed whole (formatQuery refuses trailing statements), and the quoted name came through as one token.
        expect(formatted.split('\n')[0]).toMatch(/^(CREATE (SETTINGS PROFILE|USER|ROW POLICY)|GRANT SELECT)/)
        if (!sql.startsWith('CREATE SETTINGS PROFILE')) expect(formatted).toContain(/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : quoteIdentifier(name))
        expect(await format(formatted)).toBe(formatted)
      }
    })
  }

  it('quotes as ClickHouse does', async () => {
    for (const s of HOSTILE) {
      expect(await store.query<{ v: string }>(`SELECT ${quoteString(s)} AS v`)).toEqual([{ v: s }])
      expect(await store.query<Record<string, number>>(`SELECT 1 AS ${quoteIdentifier(s)}`)).toEqual([{ [s]: 1 }])
    }
  })

  it('hashes as ClickHouse checks: SHA-256 of password then salt', async () => {
    const { hash, salt } = passwordHash('correct horse battery', 'fixedsalt')
    const ch = await store.query<{ h: string }>("SELECT lower(hex(SHA256(concat('correct horse battery', 'fixedsalt')))) AS h")
    expect({ hash, salt }).toEqual({ hash: ch[0]!.h, salt: 'fixedsalt' })
  })

  it('default user names keep letters, digits and _ only', () => {
    expect(analystUserName('acme', 'prod-eu')).toBe('analyst_acme_prod_eu')
    expect(analystUserName("x'; drop", 'é')).toBe('analyst_x___drop__')
  })
})

describe('svc analyst grant', () => {
  const state = new ControlState()
  let n = 0
  const apply = (type: string, payload: Record<string, unknown>) => state.apply({ type, payload, actor: 't', at_ms: n, event_id: `e${n++}` } as ControlEvent)
  apply('org.created', { org_id: '0a000000-0000-4000-8000-000000000001', slug: 'acme', name: 'Acme' })
  apply('workspace.created', { workspace_id: '0b000000-0000-4000-8000-000000000001', org_id: '0a000000-0000-4000-8000-000000000001', slug: 'prod', name: 'Prod' })
  apply('workspace.created', { workspace_id: '0b000000-0000-4000-8000-000000000002', org_id: '0a000000-0000-4000-8000-000000000001', slug: 'gone', name: 'Gone' })
  apply('workspace.deleted', { workspace_id: '0b000000-0000-4000-8000-000000000002' })
  const opts = (o: Partial<GrantOptions> = {}): GrantOptions => ({ org: 'acme', workspace: 'prod', user: undefined, password: undefined, apply: false, clickhouseUrl: undefined, ...o })
  const run = async (o: GrantOptions) => {
    const out: string[] = []
    const err: string[] = []
    const code = await analystGrant(o, { state, out: (t) => out.push(t), err: (t) => err.push(t), server: { user: 'admin', password: 'admin-pw' } })
    return { code, out: out.join('\n'), err: err.join('\n') }
  }

  it('parses its options and refuses incomplete ones', () => {
    expect(parseGrantArgs(['--org', 'acme', '--workspace', 'prod', '--user', 'bi'])).toEqual(opts({ user: 'bi' }))
    expect(parseGrantArgs(['--org', 'acme'])).toEqual({ error: '--org and --workspace are required' })
    expect(parseGrantArgs(['--org', 'a', '--workspace', 'b', '--apply'])).toHaveProperty('error')
    expect(parseGrantArgs(['--org', 'a', '--workspace', 'b', '--password', 'short'])).toHaveProperty('error')
    expect(parseGrantArgs(['--org', 'a', '--workspace', 'b', '--user', 'a\nb'])).toHaveProperty('error')
    expect(parseGrantArgs(['--org', 'a', '--workspace', 'b', '--bogus'])).toHaveProperty('error')
  })

  it('resolves live workspaces only', () => {
    expect(resolveWorkspace(state, 'acme', 'prod')).toEqual({ id: '0b000000-0000-4000-8000-000000000001' })
    expect(resolveWorkspace(state, 'acme', 'gone')).toHaveProperty('error')
    expect(resolveWorkspace(state, 'nope', 'prod')).toHaveProperty('error')
  })

  it('prints the statements; a generated password goes to stderr once and never into the SQL', async () => {
    const r = await run(opts())
    expect(r.code).toBe(0)
    const password = /\(shown once\): (\S+)$/.exec(r.err)![1]!
    expect(password.length).toBeGreaterThanOrEqual(24)
    expect(r.out).not.toContain(password)
    expect(r.out.split(';\n')).toHaveLength(2 + ANALYTICS_VIEWS.length + 1)
    expect(r.out).toContain("USING workspace_id = '0b000000-0000-4000-8000-000000000001' TO `analyst_acme_prod`")
    expect((await run(opts({ workspace: 'gone' }))).code).toBe(2)
  })

  it('--apply sends each statement with @clickhouse/client as the server user, and reports a refusal', async () => {
    const seen: Array<{ query: string; auth: string | undefined }> = []
    let refuse = false
    const body = (req: IncomingMessage) => new Promise<string>((resolve) => {
      let s = ''
      req.on('data', (c: Buffer) => (s += c.toString()))
      req.on('end', () => resolve(s))
    })
    const server = createServer((req, res) => {
      void body(req).then((text) => {
        seen.push({ query: text, auth: req.headers['x-clickhouse-user'] as string | undefined ?? req.headers.authorization })
        if (refuse) {
          res.writeHead(500, { 'x-clickhouse-exception-code': '497' }).end('Code: 497. DB::Exception: admin: Not enough privileges. (ACCESS_DENIED)\n')
          return
        }
        res.writeHead(200, { 'x-clickhouse-summary': '{}' }).end('')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const ok = await run(opts({ apply: true, clickhouseUrl: url, password: 'a long enough password' }))
      expect(ok.code).toBe(0)
      expect(seen.map((s) => s.query.split(' ').slice(0, 3).join(' '))).toEqual([
        'CREATE SETTINGS PROFILE', 'CREATE USER OR', ...ANALYTICS_VIEWS.map(() => 'CREATE ROW POLICY'), 'GRANT SELECT ON',
      ])
      expect(seen.every((s) => s.auth === `Basic ${Buffer.from('admin:admin-pw').toString('base64')}` || s.auth === 'admin')).toBe(true)
      refuse = true
      const denied = await run(opts({ apply: true, clickhouseUrl: url, password: 'a long enough password' }))
      expect(denied).toMatchObject({ code: 1, err: expect.stringContaining('Not enough privileges') })
    } finally {
      await new Promise((r) => server.close(r))
    }
  })
})

describe('reading the embedded control log', () => {
  it('folds the topic from its files without touching them, a torn tail included', async () => {
    const dataDir = join(dir, 'embedded')
    const bus = await createEmbeddedBus({ dir: join(dataDir, 'log'), retentionHours: 24, log })
    await bus.ensureTopics([{ name: TOPICS.controlEvents, partitions: 1, replicationFactor: 1, retentionMs: -1 }])
    const plane = await ControlPlane.start(bus, log)
    await plane.append([
      { type: 'org.created', payload: { org_id: '0a000000-0000-4000-8000-00000000000a', slug: "it's", name: 'Q' } },
      { type: 'workspace.created', payload: { workspace_id: '0b000000-0000-4000-8000-00000000000a', org_id: '0a000000-0000-4000-8000-00000000000a', slug: 'main', name: 'Main' } },
    ], 'test')
    await plane.close()
    await bus.close()
    const partition = join(dataDir, 'log', 'control.events.v1', '0')
    const segment = join(partition, readdirSync(partition).filter((f) => f.endsWith('.log')).sort().at(-1)!)
    appendFileSync(segment, Buffer.from([0, 0, 0, 90, 1, 2]))
    const size = statSync(segment).size
    const state = await readEmbeddedControlState(dataDir)
    expect(resolveWorkspace(state, "it's", 'main')).toEqual({ id: '0b000000-0000-4000-8000-00000000000a' })
    expect(statSync(segment).size).toBe(size)
  })
})
