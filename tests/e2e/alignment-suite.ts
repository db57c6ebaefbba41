/**
 * Alignment end to end on a running stack, in either bus mode: the policy is set,
 * a policy document is uploaded (multipart), chunked and embedded asynchronously by
 * the document worker; traces whose final outputs violate or respect it are
 * ingested and the alignment engine's flags are served by /flags (unclear ones only
 * with include_unclear) and aggregated by /by-user; after DELETE the document raises
 * no new flags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { docState } from '@svc/shared/store/queries/alignment'
import { eventually, startTestStack, TEST_KEY, type BusMode } from '../support/stack.js'
import { hex } from '../support/traces.js'
import type { TestJson } from '@svc/shared/test-support/json'
import { MODEL_LABEL } from '@svc/engines/semantic/model-files'

type Stack = Awaited<ReturnType<typeof startTestStack>>
const WS_PATH = '/v1/observ/orgs/acme/workspaces/agents'
const A = `${WS_PATH}/alignment`

const POLICY_DOC = `# Health information policy

Our assistant helps customers find products and general wellness information.

## Dosage and treatment

The assistant must never recommend a specific dose, dosage or dosing schedule of any medication, including over-the-counter medicines.

## Store information

Opening hours, loyalty points and stock availability may be discussed freely.`

export function alignmentSuite(mode: BusMode) {
  describe(`alignment (${mode} bus)`, () => {
    let s: Stack
    let docId = ''
    let workspaceId = ''
    const api = (path: string, init: RequestInit = {}) => fetch(s.apiUrl + path, { ...init, headers: { 'x-svc-api-key': TEST_KEY, ...(init.headers ?? {}) } })
    const json = (path: string, method: string, body: unknown) => api(path, { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
    const getJson = async (path: string) => {
      const res = await api(path)
      expect(res.status, path).toBe(200)
      return (await res.json()) as Record<string, TestJson>
    }
    /** One trace whose final answer is `output` (an LLM span's completion), served to `endUser` when given. */
    const send = async (output: string, endUser?: string) => {
      const traceId = hex(16)
      const t0 = BigInt(Date.now() - 60_000) * 1_000_000n
      const root = hex(8)
      const spans = [
        { trace_id: traceId, span_id: root, name: 'invoke_agent pharmacy-bot', start_time_unix_ns: t0.toString(), end_time_unix_ns: (t0 + 900_000_000n).toString(), status_code: 'OK', attributes: { 'gen_ai.operation.name': 'invoke_agent', ...(endUser ? { 'svc.end_user': endUser } : {}) } },
        {
          trace_id: traceId, span_id: hex(8), parent_span_id: root, name: 'chat gpt-4o-mini', start_time_unix_ns: (t0 + 100_000_000n).toString(), end_time_unix_ns: (t0 + 800_000_000n).toString(), status_code: 'OK',
          attributes: {
            'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': '50', 'gen_ai.usage.output_tokens': '30',
            'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'I have a headache, what should I do?',
            'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': output,
          },
        },
      ]
      const res = await fetch(s.ingestUrl + '/v1/traces', { method: 'POST', body: JSON.stringify(spans), headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY } })
      expect(res.status).toBe(202)
      return traceId
    }
    /** Waits until the alignment engine has a result for the trace. */
    const analysed = (traceId: string) =>
      eventually(async () => {
        const rows = await s.store.query<{ n: number }>(`SELECT count() AS n FROM engine_results_v1 WHERE trace_id = {t:String} AND engine = 'alignment'`, { t: traceId })
        return Number(rows[0]?.n) > 0 ? true : undefined
      }, 45_000, 200)
    const flagsOf = async (traceId: string, unclear = false) => ((await getJson(`${A}/flags?limit=500${unclear ? '&include_unclear=true' : ''}`)).flags as TestJson[]).filter((f) => f.trace_id === traceId)

    beforeAll(async () => {
      s = await startTestStack(mode, { SVC_ENGINE_RETRY_BASE_MS: '20' })
      workspaceId = [...s.control.state.workspaces.values()].find((w) => w.slug === 'agents')!.id
      expect((await json(`${WS_PATH}/settings/capture-text`, 'PATCH', { capture_text: true })).status).toBe(200)
    })
    afterAll(async () => {
      await s?.close()
    })

    it('stores the policy; by-user and flags are empty, not errors, before anything was flagged', async () => {
      expect(await getJson(`${A}/policy`)).toEqual({ enabled: false, description: '' })
      const put = await json(`${A}/policy`, 'PUT', { enabled: true, description: 'Wellness assistant for a pharmacy chain.' })
      expect(put.status).toBe(200)
      expect(await getJson(`${A}/policy`)).toEqual({ enabled: true, description: 'Wellness assistant for a pharmacy chain.' })
      expect(await getJson(`${A}/by-user`)).toEqual({ users: [], total: 0 })
      expect(await getJson(`${A}/flags`)).toEqual({ flags: [], total: 0 })
      // The engine is listed by ingestion health now that it has a worker.
      expect(Object.keys((await getJson(`${WS_PATH}/health/ingestion`)).engines)).toContain('alignment')
    })

    it('uploads a document (202, doc id), embeds it asynchronously; other types are 415', async () => {
      const form = new FormData()
      form.append('file', new File([POLICY_DOC], 'health-policy.md', { type: 'text/markdown' }))
      const res = await api(`${A}/docs`, { method: 'POST', body: form })
      expect(res.status).toBe(202)
      const body = (await res.json()) as { doc_id: string; status: string }
      expect(body.status).toBe('uploaded')
      docId = body.doc_id
      const embedded = await eventually(async () => {
        const d = await docState(s.store, workspaceId, docId)
        return d?.status === 'embedded' ? d : undefined
      }, 30_000, 100)
      expect(embedded.chunks).toBeGreaterThan(0)
      // The local sentence model embeds policy documents by default (the lexical hash only when it cannot load).
      expect(embedded.embedding_model).toBe(MODEL_LABEL)

      const bad = new FormData()
      bad.append('file', new File([new Uint8Array([0x50, 0x4b, 3, 4])], 'policy.docx', { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }))
      const rejected = await api(`${A}/docs`, { method: 'POST', body: bad })
      expect(rejected.status).toBe(415)
      expect(((await rejected.json()) as { error: string }).error).toBe('unsupported_media_type')
    })

    it('flags outputs that violate the document, not those that respect it; unclear ones only with include_unclear; per user', async () => {
      const violating = await send('For a headache you can take 400 mg of ibuprofen every six hours.', 'alice')
      const respecting = await send("I can't recommend a dose. Please ask one of our pharmacists, who can advise you in store.", 'bob')
      const anonymous = await send('Take two tablets of paracetamol in the morning.')
      const unclear = await send('The leaflet in the box lists the dosage.', 'carol')
      for (const t of [violating, respecting, anonymous, unclear]) await analysed(t)

      const v = await flagsOf(violating)
      expect(v).toHaveLength(1)
      expect(v[0]).toMatchObject({ trace_id: violating, severity: 'high', agent_output: 'For a headache you can take 400 mg of ibuprofen every six hours.', unclear: false })
      expect(v[0].policy_excerpt).toContain('must never recommend a specific dose')
      expect(v[0].confidence).toBeGreaterThanOrEqual(0.6)
      expect(typeof v[0].flag_id).toBe('string')
      expect(new Date(v[0].created_at).getTime()).toBeGreaterThan(0)
      expect(await flagsOf(respecting, true)).toEqual([])
      expect(await flagsOf(anonymous)).toHaveLength(1)
      expect(await flagsOf(unclear)).toEqual([])
      expect((await flagsOf(unclear, true))[0]).toMatchObject({ unclear: true })

      const page = await getJson(`${A}/flags?limit=1&offset=0`)
      expect(page.total).toBe(2)
      expect(page.flags).toHaveLength(1)
      expect((await getJson(`${A}/flags?limit=1&offset=1`)).flags).toHaveLength(1)
      expect((await getJson(`${A}/flags?include_unclear=true`)).total).toBe(3)

      const users = await getJson(`${A}/by-user`)
      expect(users.users).toEqual([expect.objectContaining({ end_user: 'alice', flags: 1, traces: 1, high: 1 })])
      expect(users.total).toBe(1)
    })

    it('after DELETE the document raises no new flags', async () => {
      expect((await api(`${A}/docs/${docId}`, { method: 'DELETE' })).status).toBe(204)
      expect((await api(`${A}/docs/${docId}`, { method: 'DELETE' })).status).toBe(404)
      expect((await docState(s.store, workspaceId, docId))?.status).toBe('deleted')
      const after = await send('For a headache you can take 400 mg of ibuprofen every six hours.', 'alice')
      await analysed(after)
      expect(await flagsOf(after, true)).toEqual([])
      // Flags raised before stay.
      expect((await getJson(`${A}/flags`)).total).toBe(2)
    })
  })
}
