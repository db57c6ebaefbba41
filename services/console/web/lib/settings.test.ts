import { describe, expect, it } from 'vitest'
import { ENGINE_NAMES } from '@svc/shared/bus/topics'
import { RETENTION_HOURS } from '@svc/shared/control/settings'
import { budgetBody, budgetForm, describeRoles, ENGINES, grantableRoles, hoursLabel, ownSwitches, RETENTION_CHOICES, retentionPlan } from './settings'

describe('engine switches', () => {
  it('lists the nine engines the API knows, in its order', () => {
    expect(ENGINES.map((e) => e.name)).toEqual([...ENGINE_NAMES])
  })

  it("keeps an engine the organization holds off as the workspace's own 'on', so saving another switch does not turn it off", () => {
    const own = ownSwitches({ engines: { content_reliability: true, sources: false, alignment: false, external_crosscheck: false }, gated_by_organization: ['alignment'] })
    expect(own.content_reliability).toBe(true)
    expect(own.sources).toBe(false)
    expect(own.alignment).toBe(true)
    expect(own.external_crosscheck).toBe(false)
    expect(Object.keys(own)).toHaveLength(9)
  })
})

describe('retention', () => {
  it('offers exactly the windows the API accepts', () => {
    expect(RETENTION_CHOICES.map((c) => c.hours)).toEqual([...RETENTION_HOURS])
    expect(hoursLabel(168)).toBe('7 days')
    expect(hoursLabel(100)).toBe('100 hours')
  })

  it('tells a shortening change (preview and confirm) from a lengthening one', () => {
    const cur = { enabled: true, effective_hours: 720, default_hours: 2160 }
    expect(retentionPlan(cur, 168)).toEqual({ body: { enabled: true, hours: 168 }, after: 168, shortens: true, unchanged: false })
    expect(retentionPlan(cur, 8760)).toMatchObject({ shortens: false, unchanged: false })
    expect(retentionPlan(cur, 720)).toMatchObject({ shortens: false, unchanged: true })
    // Turning the workspace's window off falls back to the deployment default: longer here.
    expect(retentionPlan(cur, 'default')).toEqual({ body: { enabled: false }, after: 2160, shortens: false, unchanged: false })
    // ...and shorter here, so it needs a preview of the default window.
    expect(retentionPlan({ enabled: true, effective_hours: 8760, default_hours: 2160 }, 'default')).toMatchObject({ after: 2160, shortens: true })
    // The same hours as the default, but now the workspace's own: a change, not a deletion.
    expect(retentionPlan({ enabled: false, effective_hours: 2160, default_hours: 2160 }, 2160)).toMatchObject({ shortens: false, unchanged: false })
  })
})

describe('cost budgets', () => {
  it('round-trips a stored budget through the form, percentages as the API fractions', () => {
    const stored = { day: { cap_usd: 25, warn_pct: 0.75 }, month: { cap_usd: 500, warn_pct: 0.9 } }
    expect(budgetForm(stored)).toEqual({ day: { cap: '25', warnPct: '75' }, month: { cap: '500', warnPct: '90' } })
    expect(budgetBody(budgetForm(stored))).toEqual({ budgets: stored })
    expect(budgetBody({ day: { cap: '0.1', warnPct: '33.33' }, month: { cap: '', warnPct: '80' } })).toEqual({ budgets: { day: { cap_usd: 0.1, warn_pct: 0.3333 } } })
  })

  it('leaves out a period without a cap (clearing it) and defaults the warning to 80%', () => {
    expect(budgetForm({})).toEqual({ day: { cap: '', warnPct: '80' }, month: { cap: '', warnPct: '80' } })
    expect(budgetBody({ day: { cap: '', warnPct: '80' }, month: { cap: '100', warnPct: '' } })).toEqual({ budgets: { month: { cap_usd: 100, warn_pct: 0.8 } } })
  })

  it('passes text that is not a number through, for the API to name the field in its 422', () => {
    expect(budgetBody({ day: { cap: 'ten', warnPct: '80' }, month: { cap: '', warnPct: '' } }).budgets.day?.cap_usd).toBe('ten')
  })
})

describe('members', () => {
  it('grants no role above your own', () => {
    expect(grantableRoles('admin')).toEqual(['viewer', 'dev', 'admin'])
    expect(grantableRoles('owner')).toEqual(['viewer', 'dev', 'admin', 'owner'])
    expect(grantableRoles(null)).toEqual([])
  })

  it('says a member’s roles in words', () => {
    expect(describeRoles({ role: 'admin', workspace_roles: [{ slug: 'agents', role: 'owner' }] })).toBe('admin (organization), owner in agents')
    expect(describeRoles({ role: null, workspace_roles: [{ slug: 'agents', role: 'viewer' }] })).toBe('viewer in agents')
    expect(describeRoles({ role: null, workspace_roles: [] })).toBe('no role')
  })
})
