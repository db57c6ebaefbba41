/**
 * `init`: an OpenTelemetry Node tracer provider exporting OTLP/JSON to the ingest
 * API, behind the fail-closed content filter.
 */
import { diag, type Attributes, type Tracer } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, type BufferConfig, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { DEFAULT_CONFIG_TIMEOUT_MS, fetchSdkConfig, normalizeEndpoint, type SdkConfigResult } from './config.js'
import { PROJECT_ATTRIBUTE } from './context.js'
import { SDK_NAME, SDK_VERSION } from './helpers.js'
import { CaptureGate, ContentFilterSpanProcessor } from './processor.js'

export interface InitOptions {
  /** A `dr_...` API key; it decides organization, workspace and (default) project. */
  apiKey: string
  /** Base URL of the ingest API, e.g. `https://ingest.example.com` or `http://127.0.0.1:4318`. */
  endpoint: string
  /** service.name of the resource. */
  serviceName?: string
  /** svc.project_id of every span (as a resource attribute); default the key's project. */
  projectId?: string
  /** More resource attributes. */
  resourceAttributes?: Attributes
  /**
   * 'server' (default): send text only when the workspace's sdk-config says
   * capture_text = true. false: never send text, and do not ask.
   */
  captureText?: 'server' | false
  /** Deadline of the sdk-config lookup in ms (default 3000); past it capture is off. */
  configTimeoutMs?: number
  /** Ask sdk-config again this often (ms; default 300000, 0 = only at start). A failed refresh turns capture off. */
  configRefreshMs?: number
  /** Register as the global tracer provider, context manager and propagator (default true). */
  register?: boolean
  /** BatchSpanProcessor settings. */
  batch?: BufferConfig
  /** Extra processors, run after the exporting one; they see spans unfiltered, with their text. */
  spanProcessors?: SpanProcessor[]
  /** Replaces the OTLP exporter (tests); it still gets filtered spans. */
  exporter?: SpanExporter
  /** fetch used for the config lookup (default the global one). */
  fetch?: typeof globalThis.fetch
}

export interface SvcSdk {
  tracer: Tracer
  provider: NodeTracerProvider
  /** The capture decision in force (true only when the service said so). */
  readonly captureText: boolean
  /** What the last sdk-config lookup returned. */
  readonly config: SdkConfigResult
  /** Asks sdk-config again now; resolves to the new decision. */
  refreshConfig(): Promise<boolean>
  forceFlush(): Promise<void>
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>
}

/**
 * Sets up tracing and resolves once the capture decision is known. The provider
 * is in place (and registered) before the lookup starts; a span that ends before
 * the lookup answered is exported without text.
 */
export async function init(opts: InitOptions): Promise<SvcSdk> {
  if (!opts.apiKey) throw new Error('@svc/sdk init: apiKey is required')
  if (!opts.endpoint) throw new Error('@svc/sdk init: endpoint is required')
  const base = normalizeEndpoint(opts.endpoint)
  const gate = new CaptureGate(opts.captureText === false ? 'off' : 'pending')
  const exporter = opts.exporter ?? new OTLPTraceExporter({ url: `${base}/v1/traces`, headers: { 'x-svc-api-key': opts.apiKey } })
  const resourceAttrs: Attributes = { ...opts.resourceAttributes }
  if (opts.serviceName) resourceAttrs['service.name'] = opts.serviceName
  if (opts.projectId) resourceAttrs[PROJECT_ATTRIBUTE] = opts.projectId
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes(resourceAttrs)),
    spanProcessors: [new ContentFilterSpanProcessor(new BatchSpanProcessor(exporter, opts.batch), gate), ...(opts.spanProcessors ?? [])],
  })
  if (opts.register !== false) provider.register()

  let config: SdkConfigResult = { captureText: false, error: opts.captureText === false ? 'capture disabled by init option' : 'not asked yet' }
  let lastError: string | undefined
  const lookup = async (): Promise<boolean> => {
    if (opts.captureText === false) return false
    config = await fetchSdkConfig({ endpoint: base, apiKey: opts.apiKey, timeoutMs: opts.configTimeoutMs ?? DEFAULT_CONFIG_TIMEOUT_MS, fetch: opts.fetch })
    gate.set(config.captureText)
    if (config.error && config.error !== lastError) diag.warn(`${SDK_NAME}: sdk-config lookup failed (${config.error}); prompt and completion text will not be sent`)
    lastError = config.error
    return config.captureText
  }
  await lookup()

  const refreshMs = opts.configRefreshMs ?? 300_000
  const timer = refreshMs > 0 && opts.captureText !== false ? setInterval(() => void lookup(), refreshMs) : undefined
  timer?.unref()

  return {
    tracer: provider.getTracer(SDK_NAME, SDK_VERSION),
    provider,
    get captureText() {
      return gate.allowed
    },
    get config() {
      return config
    },
    refreshConfig: lookup,
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      if (timer) clearInterval(timer)
      await provider.shutdown()
    },
  }
}
