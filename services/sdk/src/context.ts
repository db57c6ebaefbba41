import { createContextKey } from '@opentelemetry/api'

export const END_USER_ATTRIBUTE = 'svc.end_user'
export const PROJECT_ATTRIBUTE = 'svc.project_id'

/** Context values the SDK's processor copies onto every span started under them. */
export const END_USER_KEY = createContextKey('@svc/sdk end user')
export const PROJECT_KEY = createContextKey('@svc/sdk project')
