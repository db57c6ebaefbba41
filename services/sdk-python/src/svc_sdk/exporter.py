"""``OTLPJsonSpanExporter``: an OpenTelemetry ``SpanExporter`` that posts OTLP/JSON
over HTTP, usable alone with any instrumentation.

gzip by default; retries 429, 502, 503 and 504 (and connection failures) with
exponential backoff, waiting what ``Retry-After`` says when the answer has one,
until the export's deadline; logs a ``partialSuccess``. Never raises into the
application: a failed export is logged and reported as ``SpanExportResult.FAILURE``.
Standard library only (urllib), so it installs beside any other exporter.
"""

from __future__ import annotations

import email.utils
import gzip
import http.client
import json
import logging
import os
import random
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from typing import Callable, Dict, Mapping, Optional, Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from ._version import __version__
from .otlp_json import encode_spans

_log = logging.getLogger("svc_sdk.exporter")

DEFAULT_ENDPOINT = "http://localhost:4318/v1/traces"
DEFAULT_TIMEOUT = 10.0
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})
_BACKOFF_BASE = 0.5
_BACKOFF_MAX = 30.0
_MAX_RESPONSE_BYTES = 1 << 20


def backoff_delay(attempt: int, retry_after: Optional[float], rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait before retry number ``attempt`` (1, 2, ...): what the server
    asked for when it said, else exponential from 0.5 s (capped at 30 s) with
    jitter between half and the whole of it, so clients that failed together do not
    come back together."""
    if retry_after is not None:
        return retry_after
    ceiling = min(_BACKOFF_MAX, _BACKOFF_BASE * 2.0 ** (attempt - 1))
    return ceiling * (0.5 + rand() / 2)


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` in seconds: delta-seconds or an HTTP-date; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = datetime.now(timezone.utc).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


def parse_headers(text: Optional[str]) -> Dict[str, str]:
    """``OTEL_EXPORTER_OTLP_HEADERS``: comma-separated, URL-encoded ``key=value`` pairs."""
    out: Dict[str, str] = {}
    for pair in (text or "").split(","):
        key, sep, value = pair.partition("=")
        if sep and key.strip():
            out[urllib.parse.unquote(key.strip()).lower()] = urllib.parse.unquote(value.strip())
    return out


def _env(*names: str) -> Optional[str]:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def _default_endpoint() -> str:
    traces = _env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if traces:
        return traces
    base = _env("OTEL_EXPORTER_OTLP_ENDPOINT")
    return base.rstrip("/") + "/v1/traces" if base else DEFAULT_ENDPOINT


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: Optional[float] = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class OTLPJsonSpanExporter(SpanExporter):
    """Posts spans as OTLP/JSON to ``endpoint`` (the full URL, ``.../v1/traces``).

    Arguments left out are read from the OpenTelemetry environment, as the stock
    exporters do: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (or
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` + ``/v1/traces``; default
    ``http://localhost:4318/v1/traces``), ``OTEL_EXPORTER_OTLP_(TRACES_)HEADERS``,
    ``OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION`` (``gzip``, the default, or ``none``),
    and the API key from ``SVC_API_KEY``.

    :param api_key: sent as ``x-svc-api-key``.
    :param timeout: seconds one ``export`` call may take, retries included.
    """

    def __init__(
        self,
        endpoint: Optional[str] = None,
        *,
        api_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        compression: Optional[str] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        self._endpoint = endpoint or _default_endpoint()
        merged = parse_headers(_env("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"))
        merged.update({k.lower(): v for k, v in (headers or {}).items()})
        key = api_key or _env("SVC_API_KEY")
        if key:
            merged["x-svc-api-key"] = key
        merged["content-type"] = "application/json"
        merged.setdefault("user-agent", f"svc-sdk-python/{__version__}")
        self._headers = merged
        self._timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        mode = (compression or _env("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION") or "gzip").lower()
        if mode not in ("gzip", "none"):
            _log.warning("svc_sdk: compression %r is not supported; sending gzip", mode)
            mode = "gzip"
        self._gzip = mode == "gzip"
        self._ssl_context = ssl_context
        self._shutdown = threading.Event()

    @property
    def endpoint(self) -> str:
        return self._endpoint

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self._shutdown.is_set():
            _log.warning("svc_sdk: exporter already shut down, dropping %d spans", len(spans))
            return SpanExportResult.FAILURE
        if not spans:
            return SpanExportResult.SUCCESS
        try:
            body = json.dumps(encode_spans(spans), separators=(",", ":"), allow_nan=False).encode("utf-8")
            if self._gzip:
                body = gzip.compress(body, compresslevel=6)
            return self._send(body, len(spans))
        except Exception:  # the application must never see an exporter's failure
            _log.exception("svc_sdk: exporting %d spans failed", len(spans))
            return SpanExportResult.FAILURE

    def _send(self, body: bytes, count: int) -> SpanExportResult:
        deadline = time.monotonic() + self._timeout
        attempt = 0
        while True:
            attempt += 1
            remaining = deadline - time.monotonic()
            try:
                return self._post_once(body, count, max(remaining, 0.001))
            except _Retryable as err:
                delay = backoff_delay(attempt, err.retry_after)
                if time.monotonic() + delay >= deadline or self._shutdown.is_set():
                    _log.warning("svc_sdk: dropping %d spans after %d attempts: %s", count, attempt, err)
                    return SpanExportResult.FAILURE
                _log.debug("svc_sdk: %s; retrying in %.2fs", err, delay)
                if self._wait(delay):
                    _log.warning("svc_sdk: shut down while retrying, dropping %d spans (%s)", count, err)
                    return SpanExportResult.FAILURE

    def _wait(self, seconds: float) -> bool:
        """Sleeps, cut short by shutdown; True when shut down."""
        return self._shutdown.wait(seconds)

    def _post_once(self, body: bytes, count: int, timeout: float) -> SpanExportResult:
        headers = dict(self._headers)
        if self._gzip:
            headers["content-encoding"] = "gzip"
        request = urllib.request.Request(self._endpoint, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=self._ssl_context) as response:
                raw = response.read(_MAX_RESPONSE_BYTES)
                status = response.status
        except urllib.error.HTTPError as err:
            text = _excerpt(err.read(_MAX_RESPONSE_BYTES) if err.fp is not None else b"")
            if err.code in RETRYABLE_STATUSES:
                raise _Retryable(f"HTTP {err.code} {text}".strip(), parse_retry_after(err.headers.get("retry-after"))) from None
            _log.error("svc_sdk: the service refused %d spans: HTTP %d %s", count, err.code, text)
            return SpanExportResult.FAILURE
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:  # refused, reset, DNS, timeouts, cut answers
            raise _Retryable(f"{type(err).__name__}: {getattr(err, 'reason', err)}") from None
        _log_partial_success(raw, count, status)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self._shutdown.set()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True  # nothing is buffered here


def _excerpt(raw: bytes, limit: int = 300) -> str:
    text = raw.decode("utf-8", "replace").strip()
    return text if len(text) <= limit else text[:limit] + "..."


def _log_partial_success(raw: bytes, count: int, status: int) -> None:
    """OTLP's ``partialSuccess``: the server accepted the request but rejected some spans."""
    if not raw.strip():
        return
    try:
        answer = json.loads(raw)
    except ValueError:
        return
    partial = answer.get("partialSuccess") if isinstance(answer, dict) else None
    if not isinstance(partial, dict):
        return
    try:
        rejected = int(partial.get("rejectedSpans") or 0)
    except (TypeError, ValueError):
        rejected = 0
    message = partial.get("errorMessage") or ""
    if rejected or message:
        _log.warning(
            "svc_sdk: the service accepted the request (HTTP %d) but rejected %d of %d spans: %s", status, rejected, count, message
        )
