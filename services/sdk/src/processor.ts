/**
 * The fail-closed content filter: a SpanProcessor in front of the exporting one
 * that, unless capture is known to be on, hands it a view of each ended span
 * without prompt and completion text (attributes of every convention, and the
 * bodies of the GenAI text events). The span itself is left alone; only what is
 * exported is filtered. The decision is taken per span when it ends, so a span
 * that ends before the sdk-config lookup answered is stripped.
 */
import type { Attributes, Context } from '@opentelemetry/api'
import type { ReadableSpan, Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base'
import { stripTextAttributes, stripTextEventAttributes } from './content-keys.js'
import { END_USER_ATTRIBUTE, END_USER_KEY, PROJECT_ATTRIBUTE, PROJECT_KEY } from './context.js'

/** Whether text may be exported: 'pending' until sdk-config answered, then 'on' or 'off'. */
export type CaptureMode = 'pending' | 'on' | 'off'

export class CaptureGate {
  #mode: CaptureMode
  constructor(mode: CaptureMode = 'pending') {
    this.#mode = mode
  }
  get mode(): CaptureMode {
    return this.#mode
  }
  /** True only once capture is known to be on. */
  get allowed(): boolean {
    return this.#mode === 'on'
  }
  set(captureText: boolean): void {
    this.#mode = captureText ? 'on' : 'off'
  }
}

/**
 * The span as the exporter should see it with text removed; the span itself when it
 * holds no text.
 */
export function withoutText(span: ReadableSpan): ReadableSpan {
  const attributes = stripTextAttributes(span.attributes)
  let eventsChanged = false
  const events = span.events.map((e): TimedEvent => {
    if (!e.attributes) return e
    const attrs = stripTextEventAttributes(e.name, e.attributes)
    if (attrs === e.attributes) return e
    eventsChanged = true
    return { ...e, attributes: attrs }
  })
  if (attributes === span.attributes && !eventsChanged) return span
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: attributes as Attributes,
    links: span.links,
    events: eventsChanged ? events : span.events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  }
}

/**
 * Wraps the processor that exports (a BatchSpanProcessor over the OTLP exporter).
 * `allowText` is asked when each span ends; anything but true strips the span.
 * On start it also stamps svc.end_user / svc.project_id from the context
 * (`withEndUser`, `withProject`) unless the span already has them.
 */
export class ContentFilterSpanProcessor implements SpanProcessor {
  readonly #inner: SpanProcessor
  readonly #allowText: () => boolean

  constructor(inner: SpanProcessor, allowText: (() => boolean) | CaptureGate) {
    this.#inner = inner
    this.#allowText = allowText instanceof CaptureGate ? () => allowText.allowed : allowText
  }

  onStart(span: Span, parentContext: Context): void {
    const endUser = parentContext.getValue(END_USER_KEY)
    if (typeof endUser === 'string' && span.attributes[END_USER_ATTRIBUTE] === undefined) span.setAttribute(END_USER_ATTRIBUTE, endUser)
    const project = parentContext.getValue(PROJECT_KEY)
    if (typeof project === 'string' && span.attributes[PROJECT_ATTRIBUTE] === undefined) span.setAttribute(PROJECT_ATTRIBUTE, project)
    this.#inner.onStart(span, parentContext)
  }

  onEnding(span: Span): void {
    this.#inner.onEnding?.(span)
  }

  onEnd(span: ReadableSpan): void {
    let allowed = false
    try {
      allowed = this.#allowText() === true
    } catch {
      allowed = false
    }
    this.#inner.onEnd(allowed ? span : withoutText(span))
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush()
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown()
  }
}
