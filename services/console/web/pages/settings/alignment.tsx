/**
 * `/o/:org/w/:ws/settings/alignment` (admin): the alignment policy (GET/PUT
 * .../alignment/policy) and its documents: upload (POST .../alignment/docs,
 * multipart with `file`), the list with each one's status (GET .../alignment/docs,
 * asked again every 3 s while one waits to be embedded) and delete.
 */
import { useRef, useState } from 'preact/hooks'
import { api } from '../../api/client'
import type { AlignmentDoc, AlignmentPolicy } from '../../api/settings-types'
import { fmtCount, fmtTime } from '../../lib/format'
import { apiWs, wsPath } from '../../lib/paths'
import { Link } from '../../router'
import { useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, ConfirmButton, useAction, useStoredForm } from '../../ui/form'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'

const POLICY_MAX = 20_000
const ACCEPT = '.txt,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf'
const fmtBytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`)

export function AlignmentSettingsPage() {
  const { org, ws } = useWorkspace()
  const base = `${apiWs(org.org_slug, ws.slug)}/alignment`
  return (
    <section aria-labelledby="alignment-settings-title">
      <div class="page-head">
        <h1 id="alignment-settings-title">Alignment policy</h1>
      </div>
      <p class="muted">
        The alignment engine flags outputs that break this policy, read with its documents. Flags: <Link href={wsPath(org.org_slug, ws.slug, 'dashboards/alignment')}>Dashboards → Alignment</Link>.
      </p>
      <PolicyForm url={`${base}/policy`} />
      <Documents url={`${base}/docs`} />
    </section>
  )
}

function PolicyForm({ url }: { url: string }) {
  const res = useApi<AlignmentPolicy>(url)
  const save = useAction()
  const [p, edit] = useStoredForm(res.data, (d): AlignmentPolicy => ({ enabled: d.enabled, description: d.description }))
  const changed = !!p && !!res.data && (p.enabled !== res.data.enabled || p.description !== res.data.description)
  return (
    <form
      class="panel form"
      aria-labelledby="policy-title"
      onSubmit={(e) => {
        e.preventDefault()
        if (p) void save.run(() => api<AlignmentPolicy>(url, { method: 'PUT', body: p }), 'Policy saved.', res)
      }}
    >
      <h2 id="policy-title">Policy</h2>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!p && !res.error && <Loading />}
      {p && (
        <>
          <label class="check">
            <input type="checkbox" name="policy_enabled" checked={p.enabled} onChange={(e) => {
                const enabled = e.currentTarget.checked
                edit((x) => ({ ...x, enabled }))
              }} />
            Check traces against this policy (the alignment engine must be on too)
          </label>
          <label class="block-field">
            What the agents must and must not do
            <textarea name="policy_description" rows={8} maxLength={POLICY_MAX} value={p.description} onInput={(e) => {
                const description = e.currentTarget.value
                edit((x) => ({ ...x, description }))
              }} placeholder="e.g. Never promise a refund above $20. Quote prices only as listed on the product page." />
            <span class="muted small">
              {fmtCount(p.description.length)} of {fmtCount(POLICY_MAX)} characters
            </span>
          </label>
          <div class="actions">
            <button type="submit" disabled={save.busy || !changed}>
              Save policy
            </button>
          </div>
        </>
      )}
      <ActionStatus action={save} />
    </form>
  )
}

const STATUS_TONE = { uploaded: 'warn', embedded: 'good', failed: 'bad' } as const
const STATUS_TEXT = { uploaded: 'embedding…', embedded: 'in use', failed: 'failed' } as const

function Documents({ url }: { url: string }) {
  const docs = useApi<{ documents: AlignmentDoc[] }>(url, undefined, { pollMs: 3000, poll: (d) => !!d?.documents.some((x) => x.status === 'uploaded') })
  const upload = useAction()
  const remove = useAction()
  const file = useRef<HTMLInputElement>(null)
  const [chosen, setChosen] = useState<File | null>(null)

  const submit = async (e: Event) => {
    e.preventDefault()
    if (!chosen) return
    const form = new FormData()
    form.append('file', chosen)
    const r = await upload.run(() => api<{ doc_id: string; filename: string }>(url, { method: 'POST', body: form }), (d) => `Uploaded ${d.filename}: it influences flags once embedded.`)
    if (r) {
      setChosen(null)
      if (file.current) file.current.value = ''
      docs.reload()
    }
  }

  return (
    <div class="panel form" role="group" aria-labelledby="docs-title">
      <h2 id="docs-title">Documents</h2>
      <p class="muted small">Policy documents (text, Markdown, HTML or PDF, up to 10 MB) are split into passages and embedded; the engine reads the passages nearest to each output.</p>
      <form onSubmit={(e) => void submit(e)} aria-label="Upload a document">
        <div class="fields">
          <label>
            File
            <input ref={file} type="file" name="file" accept={ACCEPT} onChange={(e) => setChosen(e.currentTarget.files?.[0] ?? null)} />
          </label>
        </div>
        <div class="actions">
          <button type="submit" disabled={upload.busy || !chosen}>
            {upload.busy ? 'Uploading…' : 'Upload'}
          </button>
        </div>
        <ActionStatus action={upload} />
      </form>
      <ActionStatus action={remove} />
      {docs.error && <ErrorMessage error={docs.error} onRetry={docs.reload} />}
      {!docs.data && !docs.error && <Loading />}
      {docs.data && (
        <DataTable<AlignmentDoc>
          caption="Policy documents"
          testId="docs-table"
          rows={docs.data.documents}
          rowKey={(d) => d.doc_id}
          empty="No documents: the policy’s description alone is used."
          columns={[
            { header: 'File', cell: (d) => d.filename || d.doc_id },
            {
              header: 'Status',
              cell: (d) => (
                <span title={d.error || undefined}>
                  <Badge tone={STATUS_TONE[d.status]}>{STATUS_TEXT[d.status]}</Badge>
                  {d.status === 'embedded' && <span class="muted small"> {d.chunks} passages</span>}
                  {d.error && <span class="small block">{d.error}</span>}
                </span>
              ),
            },
            { header: 'Size', cell: (d) => `${fmtBytes(d.bytes)} · ${fmtCount(d.text_chars)} chars`, align: 'right', wide: true },
            { header: 'Uploaded', cell: (d) => fmtTime(d.uploaded_at), wide: true },
            {
              header: 'Actions',
              cell: (d) => (
                <ConfirmButton
                  label="Delete"
                  confirm={`Delete ${d.filename || 'this document'}? It stops influencing flags at once.`}
                  disabled={remove.busy}
                  onConfirm={() => void remove.run(() => api(`${url}/${encodeURIComponent(d.doc_id)}`, { method: 'DELETE' }), `Deleted ${d.filename}.`, docs)}
                />
              ),
              align: 'right',
            },
          ]}
        />
      )}
    </div>
  )
}
