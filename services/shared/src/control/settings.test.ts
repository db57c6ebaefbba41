import { describe, expect, it } from 'vitest'
import type { ControlEvent } from './events.js'
import { captureTextOn, SETTINGS, settingEvent, settingOf, type SettingName } from './settings.js'
import { ControlState } from './state.js'

const WS = '00000000-0000-4000-8000-000000000001'
let n = 0
const stored = (state: ControlState, name: string, value: unknown) =>
  state.apply({ type: 'workspace.setting_set', payload: { workspace_id: WS, name, value }, actor: 't', at_ms: 1, event_id: String(n++) } as ControlEvent)

function recordingState() {
  const warnings: unknown[] = []
  const state = new ControlState({ warn: (obj: unknown) => void warnings.push(obj) })
  return { state, warnings }
}

describe('workspace settings catalog', () => {
  it('gives every setting its default until it is set', () => {
    const { state } = recordingState()
    expect(settingOf(state, WS, 'capture_text')).toBe(false)
    expect(settingOf(state, WS, 'broaden_sources')).toBe(false)
    expect(settingOf(state, WS, 'cost_provider')).toBe('')
    expect(settingOf(state, WS, 'engines')).toEqual({})
    expect(settingOf(state, WS, 'retention')).toBeNull()
    expect(settingOf(state, WS, 'cost_budget')).toEqual({})
    expect(settingOf(state, WS, 'alignment_policy')).toEqual({ enabled: false, description: '' })
    for (const name of Object.keys(SETTINGS) as SettingName[]) expect(settingOf(state, WS, name)).toEqual(SETTINGS[name].default)
  })

  it('reads stored values parsed by their schema', () => {
    const { state, warnings } = recordingState()
    stored(state, 'capture_text', true)
    stored(state, 'retention', { enabled: true, hours: 24, updated_at_ms: 5 })
    stored(state, 'cost_budget', { day: { cap_usd: 3, warn_pct: 0.5 } })
    stored(state, 'alignment_policy', { enabled: true })
    expect(captureTextOn(state, WS)).toBe(true)
    expect(settingOf(state, WS, 'retention')).toEqual({ enabled: true, hours: 24, updated_at_ms: 5 })
    expect(settingOf(state, WS, 'cost_budget')).toEqual({ day: { cap_usd: 3, warn_pct: 0.5 } })
    expect(settingOf(state, WS, 'alignment_policy')).toEqual({ enabled: true, description: '' })
    expect(warnings).toEqual([])
  })

  it('answers the default for an invalid stored value, and logs it once per value', () => {
    const { state, warnings } = recordingState()
    stored(state, 'capture_text', 'yes')
    expect(captureTextOn(state, WS)).toBe(false)
    expect(captureTextOn(state, WS)).toBe(false)
    expect(warnings).toEqual([expect.objectContaining({ workspace_id: WS, setting: 'capture_text' })])

    stored(state, 'retention', { enabled: true, hours: 25, updated_at_ms: 1 })
    expect(settingOf(state, WS, 'retention')).toBeNull()
    stored(state, 'cost_budget', { week: { cap_usd: 1 } })
    expect(settingOf(state, WS, 'cost_budget')).toEqual({})
    stored(state, 'engines', { savings: 'off' })
    expect(settingOf(state, WS, 'engines')).toEqual({})
    expect(warnings).toHaveLength(4)

    // A valid value written later is read as such.
    stored(state, 'capture_text', true)
    expect(captureTextOn(state, WS)).toBe(true)
  })

  it('rejects unknown names, at type level and at run time', () => {
    const { state } = recordingState()
    stored(state, 'no_such_setting', true)
    // @ts-expect-error not a setting of the catalog
    expect(() => settingOf(state, WS, 'no_such_setting')).toThrow(/unknown workspace setting/)
    // @ts-expect-error not a setting of the catalog
    expect(() => settingEvent(WS, 'no_such_setting', true)).toThrow(/unknown workspace setting/)
  })

  it('writes only values the schema accepts, normalized as readers will see them', () => {
    expect(settingEvent(WS, 'cost_provider', '  OpenAI ')).toEqual({ type: 'workspace.setting_set', payload: { workspace_id: WS, name: 'cost_provider', value: 'openai' } })
    expect(settingEvent(WS, 'cost_budget', { month: { cap_usd: 10 } }).payload).toMatchObject({ value: { month: { cap_usd: 10, warn_pct: 0.8 } } })
    // @ts-expect-error a boolean setting
    expect(() => settingEvent(WS, 'capture_text', 'true')).toThrow()
    expect(() => settingEvent(WS, 'retention', { enabled: true, hours: 5, updated_at_ms: 1 })).toThrow(/hours must be one of/)
  })
})
