/**
 * `/o/:org/w/:ws/settings/api-keys` (admin): the workspace's API keys. Create one
 * (POST .../api-keys: the key is in that answer only, so it is shown once with a copy
 * button), list the active ones (GET) and revoke (DELETE, at once everywhere).
 */
import { useState } from 'preact/hooks'
import { api } from '../../api/client'
import type { ApiKey, CreatedKey } from '../../api/settings-types'
import { fmtTime } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import type { Role } from '../../lib/roles'
import { grantableRoles } from '../../lib/settings'
import { useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, ConfirmButton, SecretOnce, useAction } from '../../ui/form'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'

export function ApiKeysPage() {
  const { org, ws, role } = useWorkspace()
  const path = `${apiWs(org.org_slug, ws.slug)}/api-keys`
  const keys = useApi<{ keys: ApiKey[] }>(path)
  const create = useAction()
  const revoke = useAction()
  const [created, setCreated] = useState<CreatedKey | null>(null)
  const [name, setName] = useState('')
  const [project, setProject] = useState('')
  // A key holds viewer, dev or admin in its workspace, never more than its creator.
  const roles = grantableRoles(role).filter((r) => r !== 'owner')
  const [keyRole, setKeyRole] = useState<Role>('dev')

  const submit = async (e: Event) => {
    e.preventDefault()
    const k = await create.run(() => api<CreatedKey>(path, { method: 'POST', body: { name: name.trim(), project_id: project.trim() || undefined, role: keyRole } }), (k) => `Created key “${k.name}”.`)
    if (k) {
      setCreated(k)
      setName('')
      setProject('')
      keys.reload()
    }
  }

  return (
    <section aria-labelledby="keys-title">
      <div class="page-head">
        <h1 id="keys-title">API keys</h1>
      </div>
      <p class="muted">
        Keys send spans to ingest (<code>x-svc-api-key</code>) and read this workspace’s API. A key never holds more than the person who made it holds now.
      </p>
      {created && (
        <SecretOnce
          label={`New key “${created.name}”`}
          value={created.key}
          testId="new-key"
          note="Copy it now: it is shown only once (the service keeps only its hash)."
          onDismiss={() => setCreated(null)}
        />
      )}
      <form class="panel form" onSubmit={(e) => void submit(e)} aria-labelledby="new-key-title">
        <h2 id="new-key-title">Create a key</h2>
        <div class="fields">
          <label>
            Name
            <input name="key-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. checkout-bot production" />
          </label>
          <label>
            Project
            <input name="key-project" maxLength={200} value={project} onInput={(e) => setProject(e.currentTarget.value)} placeholder="default" />
          </label>
          <label>
            Role
            <select name="key-role" value={keyRole} onChange={(e) => setKeyRole(e.currentTarget.value as Role)}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="actions">
          <button type="submit" disabled={create.busy}>
            {create.busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
        <ActionStatus action={create} />
      </form>

      <h2>Active keys</h2>
      <ActionStatus action={revoke} />
      {keys.error && <ErrorMessage error={keys.error} onRetry={keys.reload} />}
      {!keys.data && !keys.error && <Loading />}
      {keys.data && (
        <DataTable<ApiKey>
          caption="Active API keys"
          testId="keys-table"
          rows={keys.data.keys}
          rowKey={(k) => k.id}
          empty="No active keys."
          columns={[
            { header: 'Name', cell: (k) => k.name },
            { header: 'Key', cell: (k) => <span class="mono">dr_…{k.key_last4}</span> },
            { header: 'Role', cell: (k) => <Badge tone="none">{k.role}</Badge> },
            { header: 'Project', cell: (k) => k.project_id, wide: true },
            { header: 'Created', cell: (k) => fmtTime(k.created_at), wide: true },
            { header: 'Last used', cell: (k) => (k.last_used_at ? fmtTime(k.last_used_at) : 'never'), wide: true },
            {
              header: 'Actions',
              cell: (k) => (
                <ConfirmButton
                  label="Revoke"
                  confirm={`Revoke “${k.name}”? It stops working at once.`}
                  disabled={revoke.busy}
                  onConfirm={() => void revoke.run(() => api(`${path}/${encodeURIComponent(k.id)}`, { method: 'DELETE' }), `Revoked “${k.name}”.`, keys)}
                />
              ),
              align: 'right',
            },
          ]}
        />
      )}
    </section>
  )
}
