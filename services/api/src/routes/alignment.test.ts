/**
 * Alignment routes over embedded ClickHouse: the policy setting, uploads (text,
 * Markdown, HTML, PDF; 415 otherwise) produced on a capturing bus, deletion, and the
 * flags the results sink would have landed (each trace's newest run only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alignmentDocumentV1 } from '@svc/shared/bus/records'
import type { Bus, OutgoingRecord } from '@svc/shared/bus/types'
import { docState, insertFlags, writeDocState } from '@svc/shared/store/queries/alignment'
import { insertEngineResults } from '@svc/shared/store/queries/engine-results'
import { apiHarness, ORG, WS, type Harness } from '../test-support/harness.js'
import { htmlToText } from '@svc/shared/domain/html-text'
import type { TestJson } from '@svc/shared/test-support/json'

const ADMIN = `dr_${'a'.repeat(40)}`
const VIEWER = `dr_${'v'.repeat(40)}`
const P = '/v1/observ/orgs/acme/workspaces/agents/alignment'
let h: Harness
const produced: Array<{ topic: string; records: OutgoingRecord[] }> = []
const bus = { kind: 'embedded', produce: async (topic: string, records: OutgoingRecord[]) => (produced.push({ topic, records }), []) } as unknown as Bus

const call = async (key: string, path: string, init: RequestInit = {}) => {
  const res = await h.app.request(P + path, { ...init, headers: { 'x-svc-api-key': key, ...(init.headers ?? {}) } })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}
const upload = (name: string, type: string, content: BlobPart, key = ADMIN) => {
  const form = new FormData()
  form.append('file', new File([content], name, { type }))
  return call(key, '/docs', { method: 'POST', body: form })
}

/** A one-page PDF saying `text`, built by hand (no generator dependency). */
function pdfOf(text: string): Uint8Array<ArrayBuffer> {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  objs.forEach((o, i) => {
    offsets.push(out.length)
    out += `${i + 1} 0 obj\n${o}\nendobj\n`
  })
  const xref = out.length
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new Uint8Array(new TextEncoder().encode(out))
}

beforeAll(async () => {
  h = await apiHarness({ keys: { [ADMIN]: 'admin', [VIEWER]: 'viewer' }, bus })
}, 60_000)
afterAll(() => h?.close())

describe('alignment policy', () => {
  it('is off and empty until set; PUT applies defaults; viewers read, admins write', async () => {
    expect(await call(VIEWER, '/policy')).toEqual({ status: 200, body: { enabled: false, description: '' } })
    expect((await call(VIEWER, '/policy', { method: 'PUT', body: JSON.stringify({ enabled: true }), headers: { 'content-type': 'application/json' } })).status).toBe(403)
    const put = await call(ADMIN, '/policy', { method: 'PUT', body: JSON.stringify({ enabled: true, description: 'Never give dosage advice.' }), headers: { 'content-type': 'application/json' } })
    expect(put).toEqual({ status: 200, body: { enabled: true, description: 'Never give dosage advice.' } })
    expect((await call(VIEWER, '/policy')).body).toEqual({ enabled: true, description: 'Never give dosage advice.' })
    const defaults = await call(ADMIN, '/policy', { method: 'PUT', body: JSON.stringify({}), headers: { 'content-type': 'application/json' } })
    expect(defaults.body).toEqual({ enabled: false, description: '' })
    expect((await call(ADMIN, '/policy', { method: 'PUT', body: JSON.stringify({ enabled: 'yes' }), headers: { 'content-type': 'application/json' } })).status).toBe(400)
  })
})

describe('alignment documents', () => {
  it('accepts text, Markdown, HTML and PDF: 202 with a doc id, recorded as uploaded and produced with its text', async () => {
    for (const [name, type, content, expected] of [
      ['p.txt', 'text/plain', 'Never share card numbers.', 'Never share card numbers.'],
      ['p.md', 'text/markdown', '# Rules\n\nDo not quote prices.', '# Rules\n\nDo not quote prices.'],
      ['p.html', 'text/html', '<html><body><h1>Rules</h1><p>Never &amp; ever.</p><script>x()</script></body></html>', '# Rules\n\nNever & ever.'],
      ['p.pdf', 'application/pdf', pdfOf('Refunds only within 30 days.'), 'Refunds only within 30 days.'],
      ['notes.md', '', 'Untyped, named .md', 'Untyped, named .md'],
    ] as const) {
      produced.length = 0
      const r = await upload(name, type, content)
      expect(r.status, name).toBe(202)
      expect(r.body).toMatchObject({ status: 'uploaded', filename: name })
      expect(produced).toHaveLength(1)
      expect(produced[0]!.topic).toBe('alignment.documents.v1')
      const rec = alignmentDocumentV1.decode(produced[0]!.records[0]!.value)
      expect(rec).toMatchObject({ workspace_id: WS, doc_id: r.body.doc_id })
      expect(rec.text.trim()).toBe(expected)
      expect(produced[0]!.records[0]!.key).toBe(`${WS}:${r.body.doc_id}`)
      expect((await docState(h.store, WS, r.body.doc_id))?.status).toBe('uploaded')
    }
  })

  it('answers 415 for other types, 400 without a file, 403 for a viewer', async () => {
    const r = await upload('x.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'PK...')
    expect(r.status).toBe(415)
    expect(r.body).toMatchObject({ error: 'unsupported_media_type' })
    expect(r.body.detail.accepted).toContain('application/pdf')
    expect((await call(ADMIN, '/docs', { method: 'POST', body: JSON.stringify({ file: 'x' }), headers: { 'content-type': 'application/json' } })).status).toBe(415)
    const form = new FormData()
    form.append('other', 'x')
    expect((await call(ADMIN, '/docs', { method: 'POST', body: form })).status).toBe(400)
    expect((await upload('p.txt', 'text/plain', 'Never.', VIEWER)).status).toBe(403)
  })

  it('DELETE marks the document deleted (204), then 404', async () => {
    const r = await upload('d.txt', 'text/plain', 'Never do X.')
    expect((await call(ADMIN, `/docs/${r.body.doc_id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await docState(h.store, WS, r.body.doc_id))?.status).toBe('deleted')
    expect((await call(ADMIN, `/docs/${r.body.doc_id}`, { method: 'DELETE' })).status).toBe(404)
    expect((await call(ADMIN, '/docs/unknown-doc', { method: 'DELETE' })).status).toBe(404)
    expect((await call(VIEWER, `/docs/${r.body.doc_id}`, { method: 'DELETE' })).status).toBe(403)
  })

  it('GET /docs lists the documents not deleted, newest first, with their status; viewers read it', async () => {
    const kept = await upload('kept.txt', 'text/plain', 'Never promise refunds.')
    const gone = await upload('gone.txt', 'text/plain', 'Never do Y.')
    expect((await call(ADMIN, `/docs/${gone.body.doc_id}`, { method: 'DELETE' })).status).toBe(204)
    const before = (await docState(h.store, WS, kept.body.doc_id))!
    await writeDocState(h.store, { ...before, status: 'embedded', chunks: 1, embedding_model: 'local:test', updated_at_ms: before.updated_at_ms + 5 })
    const list = await call(VIEWER, '/docs')
    expect(list.status).toBe(200)
    const ids = (list.body.documents as Array<{ doc_id: string }>).map((d) => d.doc_id)
    expect(ids).not.toContain(gone.body.doc_id)
    expect(list.body.documents[0]).toEqual({
      doc_id: kept.body.doc_id,
      filename: 'kept.txt',
      content_type: 'text/plain',
      bytes: 22,
      text_chars: 22,
      status: 'embedded',
      chunks: 1,
      embedding_model: 'local:test',
      error: '',
      uploaded_at: new Date(before.uploaded_at_ms).toISOString(),
      updated_at: new Date(before.updated_at_ms + 5).toISOString(),
    })
    const statuses = new Set((list.body.documents as Array<{ status: string }>).map((d) => d.status))
    expect([...statuses].sort()).toEqual(['embedded', 'uploaded'])
  })

  it('converts HTML to paragraphs', () => {
    expect(htmlToText('<p>a &lt;b&gt; &#39;c&#x27;</p><p>d</p>')).toBe("a <b> 'c'\n\nd")
  })
})

describe('alignment flags', () => {
  const now = Date.now()
  const exp = Math.floor(now / 1000) + 86_400
  const flag = (trace: string, id: string, over: Record<string, unknown>) => ({
    workspace_id: WS, trace_id: trace, flag_id: id, doc_id: 'd', policy_excerpt: 'Never give doses.', agent_output: 'Take 2 pills.',
    severity: 'high', confidence: 0.8, unclear: 0, end_user: '', mode: 'deterministic', computed_at: String(now), expires_at: exp, ...over,
  })
  const run = (trace: string, at: number) => ({ workspace_id: WS, trace_id: trace, engine: 'alignment', engine_version: '1', mode: 'deterministic', payload: '{}', llm_input_tokens: 0, llm_output_tokens: 0, computed_at: String(at), expires_at: exp })
  /** The flagged trace itself: a root span started `ageHours` ago. */
  const root = (trace: string, ageHours: number) => {
    const start = (BigInt(now - ageHours * 3_600_000) * 1_000_000n).toString()
    return { org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: trace, span_id: trace.slice(0, 16), parent_span_id: '', name: 'root', kind: 'SERVER', start_time: start, end_time: start, received_at: String(now), expires_at: exp }
  }

  it('by-user is an empty list, not an error, before any end user', async () => {
    expect(await call(VIEWER, '/by-user')).toEqual({ status: 200, body: { users: [], total: 0 } })
    expect(await call(VIEWER, '/flags')).toEqual({ status: 200, body: { flags: [], total: 0 } })
  })

  it('lists the newest run of each trace, pages with limit/offset, hides unclear flags by default, aggregates per end user', async () => {
    const t1 = 'a'.repeat(32)
    const t2 = 'b'.repeat(32)
    await h.store.insert('spans_v1', [root(t1, 1), root(t2, 2)])
    await insertEngineResults(h.store, [run(t1, now - 5000), run(t1, now), run(t2, now - 1000)])
    await insertFlags(h.store, [
      flag(t1, 'old', { computed_at: String(now - 5000) }), // superseded by the newer run
      flag(t1, 'f1', { end_user: 'alice' }),
      flag(t1, 'f2', { end_user: 'alice', severity: 'medium', confidence: 0.7 }),
      flag(t1, 'u1', { end_user: 'alice', unclear: 1, confidence: 0.4 }),
      flag(t2, 'f3', { end_user: 'bob', computed_at: String(now - 1000) }),
    ])
    const all = await call(VIEWER, '/flags')
    expect(all.body.total).toBe(3)
    expect(all.body.flags.map((f: TestJson) => f.flag_id)).toEqual(['f1', 'f2', 'f3'])
    expect(Object.keys(all.body.flags[0]).sort()).toEqual(['agent_output', 'confidence', 'created_at', 'flag_id', 'policy_excerpt', 'severity', 'trace_id', 'unclear'])
    const page = await call(VIEWER, '/flags?limit=1&offset=1')
    expect(page.body).toMatchObject({ total: 3, flags: [{ flag_id: 'f2' }] })
    const unclear = await call(VIEWER, '/flags?include_unclear=true')
    expect(unclear.body.total).toBe(4)
    expect(unclear.body.flags.find((f: TestJson) => f.flag_id === 'u1')).toMatchObject({ unclear: true })
    expect((await call(VIEWER, '/flags?limit=0')).status).toBe(400)
    expect((await call(VIEWER, '/flags?include_unclear=maybe')).status).toBe(400)
    const users = await call(VIEWER, '/by-user')
    expect(users.body.total).toBe(2)
    expect(users.body.users[0]).toMatchObject({ end_user: 'alice', flags: 2, traces: 1, high: 1, medium: 1, low: 0 })
    expect(users.body.users[1]).toMatchObject({ end_user: 'bob', flags: 1 })
  })

  it("serves no flag of a trace older than the workspace's retention window, nor of a trace it does not know", async () => {
    const old = 'c'.repeat(32) // 40 days: outside the default 30-day window
    const unknown = 'd'.repeat(32)
    await h.store.insert('spans_v1', [root(old, 40 * 24)])
    await insertEngineResults(h.store, [run(old, now), run(unknown, now)])
    await insertFlags(h.store, [flag(old, 'o1', { end_user: 'carol', agent_output: 'Old text.' }), flag(unknown, 'n1', { end_user: 'dave' })])
    const all = await call(VIEWER, '/flags?include_unclear=true&limit=500')
    expect(all.body.flags.map((f: TestJson) => f.trace_id)).not.toContain(old)
    expect(all.body.flags.map((f: TestJson) => f.trace_id)).not.toContain(unknown)
    expect(all.body.total).toBe(4)
    expect((await call(VIEWER, '/by-user')).body.users.map((u: TestJson) => u.end_user)).toEqual(['alice', 'bob'])
  })
})
