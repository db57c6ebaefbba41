import type { Context } from 'hono'

/** Who wrote a control event, as recorded on the event: "user:<id>" or "api_key:<id>". */
export function actorOf(c: Context): string {
  const p = c.get('principal')
  return p.kind === 'user' ? `user:${p.user_id}` : `api_key:${p.key_id}`
}
