/**
 * @svc/sdk: OpenTelemetry tracing for AI agents, exported as OTLP/JSON to the svc
 * ingest API, with prompt and completion text sent only when the workspace captures
 * it (fail-closed: when the lookup fails, no text leaves the process).
 */
export { init, type InitOptions, type SvcSdk } from './init.js'
export { fetchSdkConfig, normalizeEndpoint, DEFAULT_CONFIG_TIMEOUT_MS, type SdkConfigResult, type FetchSdkConfigOptions } from './config.js'
export { CaptureGate, ContentFilterSpanProcessor, withoutText, type CaptureMode } from './processor.js'
export {
  agentSpan,
  toolSpan,
  retrievalSpan,
  kindSpan,
  kindAttributes,
  markSpan,
  markAgent,
  markTool,
  markRetrieval,
  setEndUser,
  setProject,
  withEndUser,
  withProject,
  SDK_NAME,
  SDK_VERSION,
  type SpanHelperOptions,
  type SpanKindName,
} from './helpers.js'
export { END_USER_ATTRIBUTE, PROJECT_ATTRIBUTE } from './context.js'
export {
  TEXT_ATTRIBUTE_PATTERN,
  TEXT_EVENT_NAMES,
  isTextAttribute,
  isTextEvent,
  isTextEventAttribute,
  stripTextAttributes,
  stripTextEventAttributes,
} from './content-keys.js'
