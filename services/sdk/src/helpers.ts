/**
 * Helpers to mark agent, tool and retrieval spans the way the service (and the
 * OpenTelemetry GenAI and OpenInference conventions) recognize them, and to tag
 * spans with the end user and project.
 */
import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api'
import { END_USER_ATTRIBUTE, END_USER_KEY, PROJECT_ATTRIBUTE, PROJECT_KEY } from './context.js'

export const SDK_NAME = '@svc/sdk'
export const SDK_VERSION = '0.1.0'

export interface SpanHelperOptions {
  /** Tracer to start the span with; default the global tracer provider's `@svc/sdk` tracer. */
  tracer?: Tracer
  /** More attributes for the span. */
  attributes?: Attributes
}

export type SpanKindName = 'agent' | 'tool' | 'retrieval'

/** The attributes that make a span of the kind, in both conventions. */
export function kindAttributes(kind: SpanKindName, name: string): Attributes {
  switch (kind) {
    case 'agent':
      return { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name, 'openinference.span.kind': 'AGENT' }
    case 'tool':
      return { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'tool.name': name, 'openinference.span.kind': 'TOOL' }
    case 'retrieval':
      return { 'gen_ai.operation.name': 'retrieval', 'gen_ai.data_source.id': name, 'openinference.span.kind': 'RETRIEVER' }
  }
}

const OPERATION: Record<SpanKindName, string> = { agent: 'invoke_agent', tool: 'execute_tool', retrieval: 'retrieval' }

/** Marks an existing span as an agent, tool or retrieval span. */
export function markSpan(span: Span, kind: SpanKindName, name: string): Span {
  return span.setAttributes(kindAttributes(kind, name))
}
export const markAgent = (span: Span, name: string): Span => markSpan(span, 'agent', name)
export const markTool = (span: Span, name: string): Span => markSpan(span, 'tool', name)
export const markRetrieval = (span: Span, name: string): Span => markSpan(span, 'retrieval', name)

/**
 * Runs `fn` inside a new active span of the kind (named `invoke_agent <name>`,
 * `execute_tool <name>`, `retrieval <name>`), ending it when `fn` returns or its
 * promise settles; an exception is recorded and sets the status to ERROR.
 */
export function kindSpan<T>(kind: SpanKindName, name: string, fn: (span: Span) => T, opts: SpanHelperOptions = {}): T {
  const tracer = opts.tracer ?? trace.getTracer(SDK_NAME, SDK_VERSION)
  return tracer.startActiveSpan(`${OPERATION[kind]} ${name}`, { attributes: { ...kindAttributes(kind, name), ...opts.attributes } }, (span) => {
    const fail = (err: unknown) => {
      span.recordException(err instanceof Error ? err : String(err))
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) })
      span.end()
    }
    let out: T
    try {
      out = fn(span)
    } catch (err) {
      fail(err)
      throw err
    }
    if (out && typeof (out as { then?: unknown }).then === 'function') {
      return (out as unknown as PromiseLike<unknown>).then(
        (v) => {
          span.end()
          return v
        },
        (err: unknown) => {
          fail(err)
          throw err
        },
      ) as T
    }
    span.end()
    return out
  })
}

export const agentSpan = <T>(name: string, fn: (span: Span) => T, opts?: SpanHelperOptions): T => kindSpan('agent', name, fn, opts)
export const toolSpan = <T>(name: string, fn: (span: Span) => T, opts?: SpanHelperOptions): T => kindSpan('tool', name, fn, opts)
export const retrievalSpan = <T>(name: string, fn: (span: Span) => T, opts?: SpanHelperOptions): T => kindSpan('retrieval', name, fn, opts)

/** Sets svc.end_user on `span` (default: the active span). False when there is no span. */
export function setEndUser(id: string, span: Span | undefined = trace.getActiveSpan()): boolean {
  if (!span) return false
  span.setAttribute(END_USER_ATTRIBUTE, id)
  return true
}

/** Sets svc.project_id on `span` (default: the active span): the service files the trace under this project. */
export function setProject(id: string, span: Span | undefined = trace.getActiveSpan()): boolean {
  if (!span) return false
  span.setAttribute(PROJECT_ATTRIBUTE, id)
  return true
}

/** Runs `fn` in a context whose every new span gets svc.end_user = id (through the SDK's processor). */
export function withEndUser<T>(id: string, fn: () => T): T {
  return context.with(context.active().setValue(END_USER_KEY, id), fn)
}

/** Runs `fn` in a context whose every new span gets svc.project_id = id (through the SDK's processor). */
export function withProject<T>(id: string, fn: () => T): T {
  return context.with(context.active().setValue(PROJECT_KEY, id), fn)
}
