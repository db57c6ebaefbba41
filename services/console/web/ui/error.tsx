/** Every API failure as a sentence a person can act on: what happened, the API's own message, and its details. */
import { ApiError } from '../api/client'

const TITLES: Record<number, string> = {
  0: 'Cannot reach the API',
  400: 'The request was not accepted',
  401: 'Signed out',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  415: 'Unsupported file type',
  422: 'Check the values',
  429: 'Too many attempts',
  503: 'Temporarily unavailable',
}

function details(detail: unknown): string[] {
  if (!detail || typeof detail !== 'object') return []
  const list = Array.isArray(detail) ? detail : Array.isArray((detail as { issues?: unknown }).issues) ? (detail as { issues: unknown[] }).issues : []
  const lines = list.map((i) => {
    const x = i as { path?: unknown; parameter?: unknown; message?: unknown }
    const where = typeof x.path === 'string' && x.path ? x.path : typeof x.parameter === 'string' ? x.parameter : ''
    return `${where ? `${where}: ` : ''}${typeof x.message === 'string' ? x.message : JSON.stringify(i)}`
  })
  const accepted = (detail as { accepted?: unknown }).accepted
  if (Array.isArray(accepted)) lines.push(`accepted: ${accepted.join(', ')}`)
  return lines
}

export function ErrorMessage({ error, onRetry }: { error: ApiError | Error; onRetry?: () => void }) {
  const status = error instanceof ApiError ? error.status : -1
  const title = TITLES[status] ?? (status >= 500 ? 'The service failed to answer' : 'Something went wrong')
  const lines = error instanceof ApiError ? details(error.detail) : []
  return (
    <div class="error-box" role="alert">
      <strong>
        {title}
        {status > 0 ? ` (${status})` : ''}
      </strong>
      <p>{error.message}</p>
      {lines.length > 0 && (
        <ul>
          {lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      )}
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  )
}
