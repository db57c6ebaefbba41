/** Response building blocks shared by the route files' response schemas. */
import { z } from 'zod'
import { ROLES } from '@svc/shared/control/events'

export const IsoTime = z.string().datetime({ offset: true }).describe('ISO 8601 UTC timestamp')
export const Uuid = z.string().uuid()
export const RoleOut = z.enum(ROLES)
/** 32 hexadecimal characters (OpenTelemetry trace id); matched case-insensitively. */
export const TraceIdParams = z.object({ trace_id: z.string().describe('32-character hex OpenTelemetry trace id') })
