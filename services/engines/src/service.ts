/**
 * The engines service: one worker per engine (each its own consumer group on its
 * own jobs topic) and the results sink. Which engines a process runs is
 * SVC_ENGINES, so a deployment can give a slow engine machines of its own.
 */
import { runConsumer } from '@svc/shared/bus/run-consumer'
import { TRACE_ENGINES, type TraceEngine } from '@svc/shared/bus/topics'
import type { Bus, Subscription } from '@svc/shared/bus/types'
import type { Cache } from '@svc/shared/cache/types'
import type { BackgroundLane } from '@svc/shared/background-lane'
import type { Config } from '@svc/shared/config'
import { masterKeyFor } from '@svc/shared/control/service-secrets'
import { settingOf } from '@svc/shared/control/settings'
import type { ControlState } from '@svc/shared/control/state'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import type { Logger } from '@svc/shared/log'
import type { Store } from '@svc/shared/store/types'
import { publishSamplingStatus } from '@svc/shared/domain/engine-sampling'
import { publishSemanticStatus } from '@svc/shared/domain/semantic-model'
import { startDocumentWorker } from './alignment/documents.js'
import { lexicalEmbedder } from './alignment/embed.js'
import type { PolicyEmbedders } from './alignment/embedders.js'
import type { AlignmentPolicy } from './alignment/index.js'
import { orgEmbedders } from './alignment/provider-embedder.js'
import { reembedder } from './alignment/reembed.js'
import { policySearch } from './alignment/search.js'
import { semanticLayer } from './semantic/layer.js'
import { modelDir } from './semantic/model-files.js'
import { egressFor, orgClients } from './runtime/org-clients.js'
import { ENGINE_DEFINITIONS } from './registry.js'
import { resultSinkConsumer } from './runtime/result-sink.js'
import { workspacePriors } from './runtime/priors.js'
import { BacklogSampler } from './runtime/sampling.js'
import { startEngineWorker } from './runtime/worker.js'

/** The workspace's alignment policy setting (PUT .../alignment/policy). */
export function alignmentPolicyOf(state: ControlState, workspaceId: string): AlignmentPolicy {
  return settingOf(state, workspaceId, 'alignment_policy')
}

export interface EnginesDeps {
  bus: Bus
  store: Store
  control: { state: ControlState }
  cache: Cache
  config: Config
  log: Logger
  /**
   * The background lane of a process shared with a hot path (the all-in-one's, waiting
   * while assembly is busy): every worker's analysis and the results sink take turns in
   * it, so analysis uses the time assembly leaves free. Standalone engine processes have none.
   */
  background?: BackgroundLane
}

/** SVC_ENGINES: 'all', 'none', or a comma-separated list of engine names. */
export function enginesToRun(spec: string): TraceEngine[] {
  const s = spec.trim()
  if (s === 'all') return [...TRACE_ENGINES]
  if (s === 'none' || s === '') return []
  const names = s.split(',').map((n) => n.trim()).filter(Boolean)
  const unknown = names.filter((n) => !(TRACE_ENGINES as readonly string[]).includes(n))
  if (unknown.length) throw new Error(`SVC_ENGINES: unknown engine ${unknown.join(', ')} (known: ${TRACE_ENGINES.join(', ')})`)
  return names as TraceEngine[]
}

export async function startEngines(deps: EnginesDeps): Promise<{ close(): Promise<void>; engines: TraceEngine[] }> {
  const { bus, store, control, config } = deps
  const log = deps.log.child({ component: 'engines' })
  const engines = enginesToRun(config.SVC_ENGINES).filter((e) => ENGINE_DEFINITIONS.has(e))
  const subs: Subscription[] = []
  if (engines.length === 0) return { engines, close: async () => {} }

  const prices = loadPriceTable(config.SVC_PRICE_TABLE_FILE)
  const master = await masterKeyFor(config, deps.cache, log)
  const egress = egressFor(config, log)
  const clients = orgClients({ state: control.state, master, config, log, fetch: egress })
  // The local sentence model, loaded by the first engine run that needs it; its state goes to ingestion health.
  const semantic = semanticLayer(modelDir(config.SVC_MODEL_DIR))
  const unsubscribe = semantic.subscribe((s) => {
    if (s.status === 'unavailable') log.warn({ reason: s.reason }, 'semantic model unavailable: the engines run in lexical mode')
    else log.info({ model: s.model }, 'semantic model loaded')
    publishSemanticStatus(deps.cache, s).catch((err: unknown) => log.warn({ err }, 'could not publish the semantic model state'))
  })
  const embedders: PolicyEmbedders = {
    provider: orgEmbedders({ state: control.state, master, fetch: egress }),
    local: async () => (await semantic.embedder()) ?? lexicalEmbedder,
  }
  const reembed = reembedder({ store, embedders, log: log.child({ component: 'alignment-reembed' }) })
  const priors = workspacePriors(store)
  const background = deps.background
  const contextFor = async (orgId: string, workspaceId: string) => ({
    orgId,
    workspaceId,
    prices,
    llm: clients.llm(orgId),
    search: clients.search(orgId),
    broadenSources: settingOf(control.state, workspaceId, 'broaden_sources'),
    priorOf: await priors.of(workspaceId),
    alignmentPolicy: alignmentPolicyOf(control.state, workspaceId),
    // SVC_ALIGNMENT_TOP_K passages per output sentence.
    searchPolicy: ((search) => (texts: string[]) => search(texts, config.SVC_ALIGNMENT_TOP_K))(policySearch(store, { workspaceId, orgId }, embedders, reembed)),
    semantic: () => semantic.embedder(),
  })
  try {
    for (const name of engines)
      subs.push(
        await startEngineWorker({
          bus,
          store,
          state: control.state,
          engine: ENGINE_DEFINITIONS.get(name)!,
          contextFor,
          retry: { attempts: config.SVC_ENGINE_RETRY_ATTEMPTS, baseDelayMs: config.SVC_ENGINE_RETRY_BASE_MS },
          concurrency: config.SVC_ENGINE_CONCURRENCY,
          maxTrace: { spans: config.SVC_ENGINE_MAX_TRACE_SPANS, bytes: config.SVC_ENGINE_MAX_TRACE_BYTES },
          background,
          sampling: { sampler: new BacklogSampler({ configuredRate: config.SVC_ENGINE_SAMPLE_RATE, maxLagMs: config.SVC_ENGINE_MAX_LAG_SECONDS * 1000 }) },
          defaultRetentionHours: config.SVC_DEFAULT_RETENTION_HOURS,
          // Ingestion health reads it; a process that stops stops renewing it.
          publish: (status) => publishSamplingStatus(deps.cache, name, status, 60_000),
          log: log.child({ engine: name }),
        }),
      )
    // Policy documents are chunked and embedded wherever the alignment engine runs.
    if (engines.includes('alignment')) subs.push(await startDocumentWorker({ bus, store, embedders, log: log.child({ component: 'alignment-documents' }) }))
    subs.push(await runConsumer(bus, { ...resultSinkConsumer(store, log.child({ component: 'engine-results-sink' })), background }))
    await Promise.all(subs.map((s) => s.ready))
  } catch (err) {
    unsubscribe()
    await Promise.all(subs.map((s) => s.close()))
    throw err
  }
  log.info({ engines }, 'engine workers started')
  return {
    engines,
    close: async () => {
      unsubscribe()
      await Promise.all(subs.map((s) => s.close()))
      // The model's thread ends once its work is done: the process may exit next, and an exit mid-inference aborts it.
      await semantic.close()
    },
  }
}
