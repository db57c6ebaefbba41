/**
 * The workspace settings catalog: every setting a `workspace.setting_set` control
 * event carries, the schema its value satisfies and the value of a workspace that
 * never set it. Readers get the parsed value (`settingOf`), writers go through the
 * same schema (`settingEvent`, `writeSetting`), and routes build their bodies from
 * it, so a route and the code that acts on a setting cannot disagree about it. This
 * file is the only place a setting's name is spelled.
 */
import { z } from 'zod'
import { DEFAULT_WARN_PCT } from '../domain/budgets.js'
import type { Logger } from '../log.js'
import type { ControlWriter, NewControlEvent } from './control-plane.js'

/** The retention windows a workspace may choose (spec: exactly nine). */
export const RETENTION_HOURS = [24, 48, 168, 336, 720, 1440, 2160, 4320, 8760] as const
export const COST_PROVIDER_MAX = 64
export const POLICY_DESCRIPTION_MAX = 20_000

export const RetentionHours = z
  .number()
  .int()
  .refine((h) => (RETENTION_HOURS as readonly number[]).includes(h), { message: `hours must be one of ${RETENTION_HOURS.join(', ')}` })

const PeriodBudget = z.object({ cap_usd: z.number().finite().nonnegative(), warn_pct: z.number().min(0).max(1).default(DEFAULT_WARN_PCT) }).strict()

const entry = <S extends z.ZodTypeAny>(schema: S, fallback: z.output<S>) => ({ schema, default: fallback })

export const SETTINGS = {
  /** Off: ingest removes prompt and completion text before anything stores it. */
  capture_text: entry(z.boolean(), false),
  /** On: the sources engine may verify claims on the open web (with the organization's search credential). */
  broaden_sources: entry(z.boolean(), false),
  /** Free-form price-table provider key, lower-cased and cut to 64 characters; '' means the deployment default. */
  cost_provider: entry(
    z.string().transform((s) => s.trim().toLowerCase().slice(0, COST_PROVIDER_MAX)),
    '',
  ),
  /** Engine name -> on; a name left out takes the engine's default (domain/engines.ts). */
  engines: entry(z.record(z.boolean()), {}),
  /** null: never set, the deployment default window applies. */
  retention: entry(z.object({ enabled: z.boolean(), hours: RetentionHours, updated_at_ms: z.number().int() }).nullable(), null),
  /** Advisory caps per UTC day and month; a period left out has none. */
  cost_budget: entry(z.object({ day: PeriodBudget.optional(), month: PeriodBudget.optional() }).strict(), {}),
  alignment_policy: entry(z.object({ enabled: z.boolean().default(false), description: z.string().max(POLICY_DESCRIPTION_MAX).default('') }), { enabled: false, description: '' }),
}

export type SettingName = keyof typeof SETTINGS
type Schema<N extends SettingName> = (typeof SETTINGS)[N]['schema']
/** A setting's value as readers get it. */
export type SettingValue<N extends SettingName> = z.output<Schema<N>>
/** What a writer may pass (defaults of the schema not yet applied). */
export type SettingInput<N extends SettingName> = z.input<Schema<N>>
export type RetentionSetting = NonNullable<SettingValue<'retention'>>

/** What a reader needs of the folded control state (ControlState has it). */
export interface SettingsSource {
  readonly settings: ReadonlyMap<string, ReadonlyMap<string, unknown>>
  /** Where an invalid stored value is reported. */
  readonly log?: Pick<Logger, 'warn'> | null
}

function entryOf(name: string): { schema: z.ZodTypeAny; default: unknown } {
  if (!Object.hasOwn(SETTINGS, name)) throw new Error(`unknown workspace setting ${JSON.stringify(name)}`)
  return SETTINGS[name as SettingName]
}

// Parsed values per source, keyed by workspace and name, valid while the stored
// value is the same one: readers on hot paths (every ingest request, every
// completed trace) parse once per change, and an invalid value is logged once.
const parsed = new WeakMap<SettingsSource, Map<string, { raw: unknown; value: unknown }>>()

/**
 * A workspace's setting, parsed by the catalog's schema: the default when it was
 * never set, and also when the stored value does not satisfy the schema (an event
 * written before a rule existed, or by hand), which is logged.
 */
export function settingOf<N extends SettingName>(state: SettingsSource, workspaceId: string, name: N): SettingValue<N> {
  const e = entryOf(name)
  const raw = state.settings.get(workspaceId)?.get(name)
  if (raw === undefined) return e.default as SettingValue<N>
  let memo = parsed.get(state)
  if (!memo) parsed.set(state, (memo = new Map()))
  const key = `${workspaceId}\u0000${name}`
  const hit = memo.get(key)
  if (hit && Object.is(hit.raw, raw)) return hit.value as SettingValue<N>
  const r = e.schema.safeParse(raw)
  if (!r.success) state.log?.warn({ workspace_id: workspaceId, setting: name, issues: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) }, 'invalid stored workspace setting; its default applies')
  const value = r.success ? r.data : e.default
  memo.set(key, { raw, value })
  return value as SettingValue<N>
}

/** The control event that sets a workspace's setting; the value is validated (and normalized) by the catalog's schema, and throws when invalid. */
export function settingEvent<N extends SettingName>(workspaceId: string, name: N, value: SettingInput<N>): NewControlEvent {
  const v: unknown = entryOf(name).schema.parse(value)
  return { type: 'workspace.setting_set', payload: { workspace_id: workspaceId, name, value: v } }
}

/** Appends a setting change and resolves once this process has folded it. */
export async function writeSetting<N extends SettingName>(control: ControlWriter, actor: string, workspaceId: string, name: N, value: SettingInput<N>): Promise<void> {
  await control.append([settingEvent(workspaceId, name, value)], actor)
}

/**
 * Whether prompt and completion text of this workspace may be stored (its
 * capture_text). Ingest strips text while this is false; the SDK asks for it.
 */
export function captureTextOn(state: SettingsSource, workspaceId: string): boolean {
  return settingOf(state, workspaceId, 'capture_text')
}
