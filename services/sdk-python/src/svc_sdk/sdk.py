"""``init``: an OpenTelemetry tracer provider exporting OTLP/JSON to the ingest API,
behind the fail-closed content filter."""

from __future__ import annotations

import logging
import threading
from types import TracebackType
from typing import Literal, Mapping, Optional, Sequence, Type, Union

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Tracer
from opentelemetry.util.types import AttributeValue

from ._version import __version__
from .config import DEFAULT_CONFIG_TIMEOUT, SdkConfigResult, fetch_sdk_config, normalize_endpoint
from .context import PROJECT_ATTRIBUTE
from .exporter import OTLPJsonSpanExporter
from .helpers import SDK_NAME
from .processor import CaptureGate, ContentFilterSpanProcessor

_log = logging.getLogger("svc_sdk")

DEFAULT_CONFIG_REFRESH = 300.0


class _ConfigLookup:
    """Asks sdk-config and sets the gate from the answer; warns once per new failure reason."""

    def __init__(self, base: str, api_key: str, timeout: float, gate: CaptureGate, disabled: bool) -> None:
        self.base = base
        self.api_key = api_key
        self.timeout = timeout
        self.gate = gate
        self.disabled = disabled
        self.last = SdkConfigResult(False, error="capture disabled by init option" if disabled else "not asked yet")
        self._last_error: Optional[str] = None

    def __call__(self) -> bool:
        if self.disabled:
            return False
        result = fetch_sdk_config(self.base, self.api_key, self.timeout)
        self.gate.set(result.capture_text)
        self.last = result
        if result.error and result.error != self._last_error:
            _log.warning("svc_sdk: sdk-config lookup failed (%s); prompt and completion text will not be sent", result.error)
        self._last_error = result.error
        return result.capture_text


class SvcSdk:
    """What :func:`init` set up. Also a context manager that shuts down on exit."""

    def __init__(
        self,
        provider: TracerProvider,
        gate: CaptureGate,
        lookup: _ConfigLookup,
        refresh_every: float,
    ) -> None:
        self.provider = provider
        self.tracer: Tracer = provider.get_tracer(SDK_NAME, __version__)
        self._gate = gate
        self._lookup = lookup
        self._stop = threading.Event()
        self._refresher: Optional[threading.Thread] = None
        if refresh_every > 0:
            self._refresher = threading.Thread(target=self._refresh_loop, args=(refresh_every,), name="svc-sdk-config-refresh", daemon=True)
            self._refresher.start()

    @property
    def capture_text(self) -> bool:
        """The capture decision in force (True only when the service said so)."""
        return self._gate.allowed

    @property
    def config(self) -> SdkConfigResult:
        """What the last sdk-config lookup returned."""
        return self._lookup.last

    def refresh_config(self) -> bool:
        """Asks sdk-config again now; returns the new decision."""
        return self._lookup()

    def _refresh_loop(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                self._lookup()
            except Exception:  # a refresh must never take the thread down
                _log.exception("svc_sdk: sdk-config refresh failed")

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.provider.force_flush(timeout_millis)

    def shutdown(self) -> None:
        """Flushes what is buffered and stops exporting."""
        self._stop.set()
        self.provider.shutdown()

    def __enter__(self) -> SvcSdk:
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.shutdown()


def init(
    api_key: str,
    endpoint: str,
    *,
    service_name: Optional[str] = None,
    project_id: Optional[str] = None,
    resource_attributes: Optional[Mapping[str, AttributeValue]] = None,
    capture_text: Union[Literal["server"], Literal[False]] = "server",
    config_timeout: float = DEFAULT_CONFIG_TIMEOUT,
    config_refresh: float = DEFAULT_CONFIG_REFRESH,
    register: bool = True,
    span_processors: Sequence[SpanProcessor] = (),
    exporter: Optional[SpanExporter] = None,
    export_timeout: Optional[float] = None,
) -> SvcSdk:
    """Sets up tracing and returns once the capture decision is known.

    :param api_key: a ``dr_...`` key; it decides organization, workspace and (default) project.
    :param endpoint: base URL of the ingest API, e.g. ``http://127.0.0.1:4318`` (a trailing ``/v1/traces`` is accepted).
    :param service_name: ``service.name`` of the resource.
    :param project_id: ``svc.project_id`` of every span (a resource attribute); default the key's project.
    :param capture_text: ``"server"``: send text only when the workspace's sdk-config says
        ``capture_text: true``; ``False``: never send text, and do not ask.
    :param config_timeout: seconds the sdk-config lookup may take; past it capture is off.
    :param config_refresh: ask sdk-config again this often (seconds; 0: only at start).
        A failed refresh turns capture off.
    :param register: make the provider the global tracer provider.
    :param span_processors: more processors, after the exporting one; they see spans
        unfiltered, with their text, in this process.
    :param exporter: replaces the OTLP/JSON exporter; it still gets filtered spans.
    :param export_timeout: seconds one export may take, retries included (default 10).

    The provider is in place (and registered) before the lookup starts; a span that
    ends before the lookup answered is exported without text.
    """
    if not api_key:
        raise ValueError("svc_sdk.init: api_key is required")
    if not endpoint:
        raise ValueError("svc_sdk.init: endpoint is required")
    if capture_text not in ("server", False):
        raise ValueError("svc_sdk.init: capture_text is 'server' or False")
    base = normalize_endpoint(endpoint)
    disabled = capture_text is False
    gate = CaptureGate("off" if disabled else "pending")
    span_exporter = exporter or OTLPJsonSpanExporter(f"{base}/v1/traces", api_key=api_key, timeout=export_timeout)
    attrs: dict[str, AttributeValue] = dict(resource_attributes or {})
    if service_name:
        attrs["service.name"] = service_name
    if project_id:
        attrs[PROJECT_ATTRIBUTE] = project_id
    provider = TracerProvider(resource=Resource.create(attrs))
    provider.add_span_processor(ContentFilterSpanProcessor(BatchSpanProcessor(span_exporter), gate))
    for processor in span_processors:
        provider.add_span_processor(processor)
    if register:
        trace.set_tracer_provider(provider)
        if trace.get_tracer_provider() is not provider:
            _log.warning("svc_sdk: a global tracer provider was already set; use sdk.tracer or pass register=False")
    lookup = _ConfigLookup(base, api_key, config_timeout, gate, disabled)
    lookup()
    return SvcSdk(provider, gate, lookup, config_refresh if not disabled else 0)
