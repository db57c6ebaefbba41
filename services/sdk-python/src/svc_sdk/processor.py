"""The fail-closed content filter: a ``SpanProcessor`` in front of the exporting one
that, unless capture is known to be on, hands it a copy of each ended span without
prompt and completion text (attributes of every convention, and the attributes of
the GenAI text events). The span itself is left alone; only what is exported is
filtered. The decision is taken per span when it ends, so a span that ends before
the sdk-config lookup answered is stripped.
"""

from __future__ import annotations

import logging
from typing import Callable, Optional, Union

from opentelemetry import context as otel_context
from opentelemetry.context import Context
from opentelemetry.sdk.trace import Event, ReadableSpan, Span, SpanProcessor

from .content_keys import strip_text_attributes, strip_text_event_attributes
from .context import END_USER_ATTRIBUTE, END_USER_KEY, PROJECT_ATTRIBUTE, PROJECT_KEY

_log = logging.getLogger("svc_sdk.processor")


class CaptureGate:
    """Whether text may be exported: ``"pending"`` until sdk-config answered, then ``"on"`` or ``"off"``."""

    def __init__(self, mode: str = "pending") -> None:
        if mode not in ("pending", "on", "off"):
            raise ValueError(f"capture mode {mode!r} is not pending, on or off")
        self._mode = mode

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def allowed(self) -> bool:
        """True only once capture is known to be on."""
        return self._mode == "on"

    def set(self, capture_text: bool) -> None:
        self._mode = "on" if capture_text is True else "off"


class _StrippedSpan(ReadableSpan):
    """A span as exported without its text; keeps the original's dropped counts."""

    def __init__(self, span: ReadableSpan, attributes: object, events: tuple[Event, ...]) -> None:
        super().__init__(
            name=span.name,
            context=span.get_span_context(),
            parent=span.parent,
            resource=span.resource,
            attributes=attributes,  # type: ignore[arg-type]
            events=events,
            links=span.links,
            kind=span.kind,
            status=span.status,
            start_time=span.start_time,
            end_time=span.end_time,
            instrumentation_scope=span.instrumentation_scope,
        )
        self._dropped = (span.dropped_attributes, span.dropped_events, span.dropped_links)

    @property
    def dropped_attributes(self) -> int:
        return self._dropped[0]

    @property
    def dropped_events(self) -> int:
        return self._dropped[1]

    @property
    def dropped_links(self) -> int:
        return self._dropped[2]


def without_text(span: ReadableSpan) -> ReadableSpan:
    """The span as the exporter should see it with text removed; the span itself
    when it holds no text."""
    attributes = span.attributes or {}
    stripped = strip_text_attributes(attributes)
    events_changed = False
    events = []
    for event in span.events:
        attrs = event.attributes or {}
        kept = strip_text_event_attributes(event.name, attrs)
        if kept is attrs:
            events.append(event)
            continue
        events_changed = True
        events.append(Event(event.name, dict(kept), event.timestamp))
    if stripped is attributes and not events_changed:
        return span
    return _StrippedSpan(span, dict(stripped), tuple(events))


class ContentFilterSpanProcessor(SpanProcessor):
    """Wraps the processor that exports (a ``BatchSpanProcessor`` over the exporter).

    ``allow_text`` is asked when each span ends; anything but ``True`` strips the
    span. On start it also stamps ``svc.end_user`` / ``svc.project_id`` from the
    context (``end_user(...)``, ``project(...)``) unless the span has them already.
    """

    def __init__(self, inner: SpanProcessor, allow_text: Union[CaptureGate, Callable[[], bool]]) -> None:
        self._inner = inner
        if isinstance(allow_text, CaptureGate):
            gate = allow_text
            self._allow_text: Callable[[], bool] = lambda: gate.allowed
        else:
            self._allow_text = allow_text

    def on_start(self, span: Span, parent_context: Optional[Context] = None) -> None:
        ctx = parent_context if parent_context is not None else otel_context.get_current()
        attrs = span.attributes or {}
        for key, attribute in ((END_USER_KEY, END_USER_ATTRIBUTE), (PROJECT_KEY, PROJECT_ATTRIBUTE)):
            value = otel_context.get_value(key, ctx)
            if isinstance(value, str) and attrs.get(attribute) is None:
                span.set_attribute(attribute, value)
        self._inner.on_start(span, parent_context=parent_context)

    def _on_ending(self, span: Span) -> None:
        on_ending = getattr(self._inner, "_on_ending", None)
        if on_ending is not None:
            on_ending(span)

    def on_end(self, span: ReadableSpan) -> None:
        try:
            allowed = self._allow_text() is True
        except Exception:
            allowed = False
        if not allowed:
            try:
                span = without_text(span)
            except Exception:  # never export what could not be cleaned
                _log.exception("svc_sdk: could not remove text from span %r; not exporting it", span.name)
                return
        self._inner.on_end(span)

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)
