/**
 * Workspace settings (capture-text, broaden-sources, cost-provider) and engine
 * settings. Every value is a workspace.setting_set control event, so ingest (which
 * strips text while capture_text is off) and the assembler (which emits jobs only
 * for enabled engines) act on a change as soon as they fold it.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { ENGINE_NAMES, type EngineName } from '@svc/shared/bus/topics'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import { captureTextOn, COST_PROVIDER_MAX, SETTINGS, settingOf, writeSetting } from '@svc/shared/control/settings'
import { engineAllowed, engineEnabled } from '@svc/shared/domain/engines'
import { workspaceCostProvider } from '@svc/shared/domain/pricing'
import { badRequest } from '@svc/shared/http/errors'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { actorOf } from '../actor.js'
import { describeRoute } from '../openapi/registry.js'
import { jsonBody } from './auth.js'

const CaptureTextBody = z.object({ capture_text: SETTINGS.capture_text.schema }).strict()
const BroadenSourcesBody = z.object({ broaden_sources: SETTINGS.broaden_sources.schema }).strict()
const CostProviderBody = z.object({ cost_provider: SETTINGS.cost_provider.schema.describe(`free-form; lower-cased and cut to ${COST_PROVIDER_MAX} characters; '' clears it`) }).strict()
const EngineSettingsBody = z.object({ engines: SETTINGS.engines.schema.describe('engine name -> on; a name left out takes its default') }).strict()

const CaptureTextOut = z.object({ capture_text: z.boolean() })
const BroadenSourcesOut = z.object({ broaden_sources: z.boolean(), search_credential_configured: z.boolean(), mode: z.enum(['open_web', 'closed_knowledge_base']) })
const CostProviderOut = z.object({ cost_provider: z.string(), effective_provider: z.string() })
const EngineSettingsOut = z.object({
  engines: z.record(z.boolean()).describe('all nine engines, effective values (the workspace switch and the organization gate together)'),
  gated_by_organization: z.array(z.enum(ENGINE_NAMES)).describe('engines the workspace turned on but its organization holds off'),
})

const TAGS = ['Workspace settings']
describeRoute({ route: ROUTES.getCaptureText, summary: 'Get text capture', tags: TAGS, responses: { 200: { description: 'The setting', schema: CaptureTextOut } } })
describeRoute({
  route: ROUTES.patchCaptureText,
  summary: 'Turn text capture on or off',
  description: 'Off (the default): ingest removes prompt and completion text from every span before it is stored.',
  tags: TAGS,
  body: CaptureTextBody,
  responses: { 200: { description: 'The setting', schema: CaptureTextOut } },
})
describeRoute({ route: ROUTES.getBroadenSources, summary: 'Get open-web source broadening', tags: TAGS, responses: { 200: { description: 'The setting and the resulting mode', schema: BroadenSourcesOut } } })
describeRoute({
  route: ROUTES.patchBroadenSources,
  summary: 'Turn open-web source broadening on or off',
  description: 'open_web needs the organization\'s search credential too.',
  tags: TAGS,
  body: BroadenSourcesBody,
  responses: { 200: { description: 'The setting and the resulting mode', schema: BroadenSourcesOut } },
})
describeRoute({ route: ROUTES.getCostProvider, summary: 'Get the cost pricing provider', tags: TAGS, responses: { 200: { description: 'The setting', schema: CostProviderOut } } })
describeRoute({ route: ROUTES.patchCostProvider, summary: 'Set the cost pricing provider', tags: TAGS, body: CostProviderBody, responses: { 200: { description: 'The setting', schema: CostProviderOut } } })
describeRoute({ route: ROUTES.getEngineSettings, summary: 'Get engine switches', tags: ['Engine settings'], responses: { 200: { description: 'Effective engine switches', schema: EngineSettingsOut } } })
describeRoute({
  route: ROUTES.putEngineSettings,
  summary: 'Replace engine switches',
  description: 'Replaces the stored map; an unknown engine name answers 400 with detail.accepted.',
  tags: ['Engine settings'],
  body: EngineSettingsBody,
  responses: { 200: { description: 'Effective engine switches', schema: EngineSettingsOut } },
})

export function settingRoutes(control: ControlWriter, opts: { defaultCostProvider: string }): Hono {
  const app = new Hono()
  const { state } = control

  const captureText = (ws: string) => ({ capture_text: captureTextOn(state, ws) })
  mount(app, ROUTES.getCaptureText, state, (c) => c.json(captureText(targetWorkspace(c).id)))
  mount(app, ROUTES.patchCaptureText, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, CaptureTextBody)
    await writeSetting(control, actorOf(c), ws.id, 'capture_text', body.capture_text)
    return c.json(captureText(ws.id))
  })

  // Open-web verification needs the organization's search credential; without it the
  // sources engine stays on the closed knowledge base whatever the flag says.
  const broadenSources = (wsId: string, orgId: string) => {
    const on = settingOf(state, wsId, 'broaden_sources')
    const credential = state.credentialsOf(orgId).search !== null
    return { broaden_sources: on, search_credential_configured: credential, mode: on && credential ? 'open_web' : 'closed_knowledge_base' }
  }
  mount(app, ROUTES.getBroadenSources, state, (c) => {
    const ws = targetWorkspace(c)
    return c.json(broadenSources(ws.id, ws.org_id))
  })
  mount(app, ROUTES.patchBroadenSources, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, BroadenSourcesBody)
    await writeSetting(control, actorOf(c), ws.id, 'broaden_sources', body.broaden_sources)
    return c.json(broadenSources(ws.id, ws.org_id))
  })

  const costProvider = (ws: string) => ({
    cost_provider: settingOf(state, ws, 'cost_provider'),
    effective_provider: workspaceCostProvider(state, ws, opts.defaultCostProvider),
  })
  mount(app, ROUTES.getCostProvider, state, (c) => c.json(costProvider(targetWorkspace(c).id)))
  mount(app, ROUTES.patchCostProvider, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, CostProviderBody)
    // Free-form by design (any provider key of the price table or an operator's own); the catalog normalizes it.
    await writeSetting(control, actorOf(c), ws.id, 'cost_provider', body.cost_provider)
    return c.json(costProvider(ws.id))
  })

  // Effective values: the workspace's switch and its organization's gate together.
  // gated_by_organization (beyond the spec) says which switches the organization holds closed.
  const engines = (ws: string) => {
    const stored = settingOf(state, ws, 'engines')
    return {
      engines: Object.fromEntries(ENGINE_NAMES.map((n) => [n, engineAllowed(state, ws, n)])) as Record<EngineName, boolean>,
      gated_by_organization: ENGINE_NAMES.filter((n) => engineEnabled(stored, n) && !engineAllowed(state, ws, n)),
    }
  }
  mount(app, ROUTES.getEngineSettings, state, (c) => c.json(engines(targetWorkspace(c).id)))
  mount(app, ROUTES.putEngineSettings, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, EngineSettingsBody)
    const unknown = Object.keys(body.engines).filter((n) => !(ENGINE_NAMES as readonly string[]).includes(n))
    if (unknown.length) throw badRequest(`unknown engine ${unknown.join(', ')}`, { accepted: ENGINE_NAMES })
    // PUT replaces the map: a name left out goes back to its default.
    await writeSetting(control, actorOf(c), ws.id, 'engines', body.engines)
    return c.json(engines(ws.id))
  })

  return app
}
