/**
 * `/o/:org/w/:ws/settings/members` (dev in the organization; changes need admin):
 * the organization's members with their roles and status (GET /v1/orgs/{id}/members),
 * inviting someone (POST: the invitation token is in that answer only, shown once
 * with a copy button, to hand to the person, who redeems it with
 * POST /v1/auth/invitations/accept), changing a role (PATCH) and removing (DELETE).
 * Roles are offered up to the caller's own; the API refuses anything else with a
 * message shown here.
 */
import { useState } from 'preact/hooks'
import { api } from '../../api/client'
import type { Invited, Member } from '../../api/settings-types'
import { fmtTime } from '../../lib/format'
import { atLeast, type Role } from '../../lib/roles'
import { describeRoles, grantableRoles } from '../../lib/settings'
import { useSession, useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, ConfirmButton, SecretOnce, useAction, type Action } from '../../ui/form'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'

type Scope = 'org' | 'ws'

export function MembersPage() {
  const { org, ws } = useWorkspace()
  const { me } = useSession()
  const path = `/v1/orgs/${encodeURIComponent(org.org_id)}/members`
  const members = useApi<{ members: Member[] }>(path)
  const admin = atLeast(org.role, 'admin')
  const change = useAction()
  const [invited, setInvited] = useState<Invited | null>(null)

  const status = (m: Member) =>
    m.status === 'active' ? (
      <Badge tone="good">active</Badge>
    ) : (
      <span>
        <Badge tone={m.status === 'expired' ? 'bad' : 'warn'}>{m.status}</Badge>
        {m.invitation_expires_at && <span class="muted small"> {m.status === 'expired' ? 'since' : 'until'} {fmtTime(m.invitation_expires_at)}</span>}
      </span>
    )

  return (
    <section aria-labelledby="members-title">
      <div class="page-head">
        <h1 id="members-title">Members of {org.org_name || org.org_slug}</h1>
      </div>
      <p class="muted">
        Roles are organization-wide or scoped to one workspace; the higher applies. People join by redeeming an invitation, so nobody here ever sets another person’s password.
      </p>
      {invited && (
        <SecretOnce
          label={`Invitation for ${invited.email}`}
          value={invited.invitation_token}
          testId="invitation-token"
          note={
            <>
              Give this token to {invited.email}: it is shown only once and expires {fmtTime(invited.invitation_expires_at)}. They redeem it with{' '}
              <code>POST /v1/auth/invitations/accept</code> {'{ token, password }'}
              {invited.existing_user ? ' (signed in to their existing account)' : ', choosing their password'}.
            </>
          }
          onDismiss={() => setInvited(null)}
        />
      )}
      {admin && <InviteForm orgId={org.org_id} wsId={ws.workspace_id} wsName={ws.name} myRole={org.role} onInvited={(i) => {
            setInvited(i)
            members.reload()
          }} />}

      <h2>Members</h2>
      <ActionStatus action={change} />
      {members.error && <ErrorMessage error={members.error} onRetry={members.reload} />}
      {!members.data && !members.error && <Loading />}
      {members.data && (
        <DataTable<Member>
          caption="Members and invitations"
          testId="members-table"
          rows={members.data.members}
          rowKey={(m) => m.user_id}
          columns={[
            {
              header: 'Member',
              cell: (m) => (
                <>
                  {m.email}
                  {m.user_id === me.user_id && <span class="muted small"> (you)</span>}
                  <span class="block small muted">{describeRoles(m)}</span>
                </>
              ),
            },
            { header: 'Status', cell: status },
            ...(admin
              ? [
                  {
                    header: 'Actions',
                    cell: (m: Member) => <MemberActions member={m} path={path} wsId={ws.workspace_id} myRole={org.role} action={change} onChanged={members.reload} />,
                  },
                ]
              : []),
          ]}
        />
      )}
    </section>
  )
}

function ScopeSelect({ value, onChange, wsName, name }: { value: Scope; onChange(s: Scope): void; wsName: string; name: string }) {
  return (
    <select name={name} value={value} onChange={(e) => onChange(e.currentTarget.value as Scope)} aria-label="Where the role applies">
      <option value="org">whole organization</option>
      <option value="ws">only workspace {wsName}</option>
    </select>
  )
}

function InviteForm({ orgId, wsId, wsName, myRole, onInvited }: { orgId: string; wsId: string; wsName: string; myRole: Role | null; onInvited(i: Invited): void }) {
  const invite = useAction()
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<Role>('viewer')
  const [scope, setScope] = useState<Scope>('ws')
  const submit = async (e: Event) => {
    e.preventDefault()
    const body = { email: email.trim(), role, ...(scope === 'ws' ? { workspace_id: wsId } : {}) }
    const r = await invite.run(() => api<Invited>(`/v1/orgs/${encodeURIComponent(orgId)}/members`, { method: 'POST', body }), (i) => `Invited ${i.email}.`)
    if (r) {
      setEmail('')
      onInvited(r)
    }
  }
  return (
    <form class="panel form" onSubmit={(e) => void submit(e)} aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <div class="fields">
        <label>
          Email
          <input type="email" name="invite-email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} autoComplete="off" />
        </label>
        <label>
          Role
          <select name="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {grantableRoles(myRole).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Applies to
          <ScopeSelect name="invite-scope" value={scope} onChange={setScope} wsName={wsName} />
        </label>
      </div>
      <div class="actions">
        <button type="submit" disabled={invite.busy}>
          {invite.busy ? 'Inviting…' : 'Create invitation'}
        </button>
      </div>
      <ActionStatus action={invite} />
    </form>
  )
}

function MemberActions({ member, path, wsId, myRole, action, onChanged }: { member: Member; path: string; wsId: string; myRole: Role | null; action: Action; onChanged(): void }) {
  const [editing, setEditing] = useState(false)
  const [role, setRole] = useState<Role>(member.role ?? member.workspace_roles.find((w) => w.workspace_id === wsId)?.role ?? 'viewer')
  const [scope, setScope] = useState<Scope>(member.role ? 'org' : 'ws')
  const url = `${path}/${encodeURIComponent(member.user_id)}`
  const remove = (
    <ConfirmButton
      label={member.status === 'active' ? 'Remove' : 'Cancel invitation'}
      confirm={member.status === 'active' ? `Remove ${member.email} from the organization?` : `Cancel the invitation of ${member.email}?`}
      disabled={action.busy}
      onConfirm={() => void action.run(() => api(url, { method: 'DELETE' }), `Removed ${member.email}.`).then(onChanged)}
    />
  )
  // A pending invitation has no membership to change yet (the API answers 404): it can only be cancelled, or replaced by a new one.
  if (member.status !== 'active') return <span class="row-actions">{remove}</span>
  if (!editing)
    return (
      <span class="row-actions">
        <button type="button" class="secondary" onClick={() => setEditing(true)} aria-label={`Change the role of ${member.email}`}>
          Change role
        </button>
        {remove}
      </span>
    )
  return (
    <form
      class="row-actions"
      aria-label={`New role of ${member.email}`}
      onSubmit={(e) => {
        e.preventDefault()
        void action
          .run(() => api(url, { method: 'PATCH', body: { new_role: role, target_workspace_id: scope === 'ws' ? wsId : null } }), `${member.email} is now ${role}${scope === 'ws' ? ' in this workspace' : ''}.`)
          .then((r) => {
            if (r !== undefined) setEditing(false)
            onChanged()
          })
      }}
    >
      <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} aria-label="Role">
        {grantableRoles(myRole).map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <ScopeSelect name="member-scope" value={scope} onChange={setScope} wsName="this one" />
      <button type="submit" disabled={action.busy}>
        Save
      </button>
      <button type="button" class="secondary" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  )
}
