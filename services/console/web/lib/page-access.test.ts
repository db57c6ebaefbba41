import { describe, expect, it } from 'vitest'
import { canOpen, navEntries, refusal, samePageElsewhere, sectionPages, type Gate, type Standing } from './page-access'

const traces: Gate = { pattern: '/o/:org/w/:ws/traces', minRole: 'viewer', nav: 'Traces' }
const trace: Gate = { pattern: '/o/:org/w/:ws/traces/:trace_id', minRole: 'viewer' }
const usage: Gate = { pattern: '/o/:org/w/:ws/dashboards/usage', minRole: 'viewer', nav: 'Dashboards', section: 'dash', tab: 'Usage' }
const health: Gate = { pattern: '/o/:org/w/:ws/dashboards/health', minRole: 'admin', section: 'dash', tab: 'Health' }
const keys: Gate = { pattern: '/o/:org/w/:ws/settings/api-keys', minRole: 'admin', nav: 'Settings', section: 'settings', tab: 'API keys' }
const members: Gate = { pattern: '/o/:org/w/:ws/settings/members', minRole: 'dev', orgRole: true, section: 'settings', tab: 'Members' }
const PAGES = [traces, trace, usage, health, keys, members]

const viewer: Standing = { role: 'viewer', org: { role: 'viewer' } }
const orgDev: Standing = { role: 'dev', org: { role: 'dev' } }
/** An admin of this workspace only: no organization-wide role. */
const wsAdmin: Standing = { role: 'admin', org: { role: null } }
const owner: Standing = { role: 'owner', org: { role: 'owner' } }

describe('page access', () => {
  it('gates workspace pages by the workspace role and organization pages by the organization-wide role', () => {
    expect(canOpen(keys, wsAdmin)).toBe(true)
    expect(canOpen(members, wsAdmin)).toBe(false)
    expect(canOpen(members, orgDev)).toBe(true)
    expect(canOpen(keys, orgDev)).toBe(false)
    expect(canOpen(traces, null)).toBe(false)
    expect(refusal(members, wsAdmin)).toBe('This page needs the dev role in this organization; you have none there (admin in this workspace).')
    expect(refusal(keys, viewer)).toBe('This page needs the admin role in this workspace; you have viewer.')
  })

  it('lists a section once in the header, opening its first page the caller may open', () => {
    const labels = (s: Standing, current: Gate | null = null) => navEntries(PAGES, current, s).map((e) => `${e.label}→${e.page.tab ?? e.page.nav}${e.active ? '*' : ''}`)
    expect(labels(viewer)).toEqual(['Traces→Traces', 'Dashboards→Usage'])
    expect(labels(orgDev, members)).toEqual(['Traces→Traces', 'Dashboards→Usage', 'Settings→Members*'])
    expect(labels(owner, health)).toEqual(['Traces→Traces', 'Dashboards→Usage*', 'Settings→API keys'])
    expect(labels(wsAdmin, trace)).toEqual(['Traces→Traces', 'Dashboards→Usage', 'Settings→API keys'])
  })

  it("lists the current section's pages the caller may open", () => {
    expect(sectionPages(PAGES, usage, viewer).map((p) => p.tab)).toEqual(['Usage'])
    expect(sectionPages(PAGES, usage, owner).map((p) => p.tab)).toEqual(['Usage', 'Health'])
    expect(sectionPages(PAGES, keys, wsAdmin).map((p) => p.tab)).toEqual(['API keys'])
    expect(sectionPages(PAGES, traces, owner)).toEqual([])
  })

  it('keeps a page without its own parameters when the workspace changes', () => {
    expect(samePageElsewhere(usage.pattern)).toBe(true)
    expect(samePageElsewhere(traces.pattern)).toBe(true)
    expect(samePageElsewhere(trace.pattern)).toBe(false)
    expect(samePageElsewhere('/')).toBe(false)
  })
})
