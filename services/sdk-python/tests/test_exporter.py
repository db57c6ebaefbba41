"""OTLPJsonSpanExporter against a loopback server of the test's own."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import List, Sequence

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult

from conftest import Memory
from loopback import LoopbackServer, Reply, script
from svc_sdk import OTLPJsonSpanExporter
from svc_sdk.exporter import backoff_delay, parse_headers, parse_retry_after
from svc_sdk.otlp_json import encode_spans

KEY = "dr_pythonSdkTestKey00000000000000000001"


def spans(memory: Memory, n: int = 2) -> Sequence[ReadableSpan]:
    for i in range(n):
        with memory.tracer.start_as_current_span(f"span {i}", attributes={"gen_ai.request.model": "gpt-4o", "i": i}):
            pass
    return memory.spans()


class Waits:
    """Records what the exporter would sleep instead of sleeping."""

    def __init__(self, exporter: OTLPJsonSpanExporter) -> None:
        self.seconds: List[float] = []
        exporter._wait = self  # type: ignore[method-assign]

    def __call__(self, seconds: float) -> bool:
        self.seconds.append(seconds)
        return False


def exporter_for(server: LoopbackServer, **kwargs: object) -> OTLPJsonSpanExporter:
    return OTLPJsonSpanExporter(f"{server.url}/v1/traces", api_key=KEY, **kwargs)  # type: ignore[arg-type]


def test_posts_gzip_otlp_json_with_the_key(server: LoopbackServer, memory: Memory) -> None:
    server.responder = lambda _r: Reply(202, {"accepted_spans": 2})
    batch = spans(memory)
    assert exporter_for(server).export(batch) is SpanExportResult.SUCCESS
    [req] = server.requests
    assert (req.method, req.path) == ("POST", "/v1/traces")
    assert req.headers["content-type"] == "application/json"
    assert req.headers["content-encoding"] == "gzip"
    assert req.headers["x-svc-api-key"] == KEY
    assert req.headers["user-agent"].startswith("svc-sdk-python/")
    assert req.raw[:2] == b"\x1f\x8b"
    assert req.json() == encode_spans(batch)


def test_compression_none_sends_plain_json(server: LoopbackServer, memory: Memory) -> None:
    assert exporter_for(server, compression="none").export(spans(memory)) is SpanExportResult.SUCCESS
    [req] = server.requests
    assert "content-encoding" not in req.headers
    assert req.raw.startswith(b'{"resourceSpans":')


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_retries_the_retryable_statuses_waiting_what_retry_after_says(server: LoopbackServer, memory: Memory, status: int) -> None:
    server.responder = script(Reply(status, {"error": "busy"}, {"retry-after": "2"}), Reply(status, {}, {"retry-after": "1"}), Reply(202, {}))
    exporter = exporter_for(server, timeout=30)
    waits = Waits(exporter)
    assert exporter.export(spans(memory)) is SpanExportResult.SUCCESS
    assert waits.seconds == [2.0, 1.0]
    assert len(server.posts()) == 3
    assert server.posts()[0].body == server.posts()[2].body


def test_backs_off_exponentially_with_jitter_without_retry_after(server: LoopbackServer, memory: Memory) -> None:
    server.responder = script(Reply(503), Reply(503), Reply(503), Reply(202))
    exporter = exporter_for(server, timeout=30)
    waits = Waits(exporter)
    assert exporter.export(spans(memory)) is SpanExportResult.SUCCESS
    assert len(waits.seconds) == 3
    for attempt, wait in enumerate(waits.seconds, start=1):
        ceiling = 0.5 * 2 ** (attempt - 1)
        assert ceiling / 2 <= wait <= ceiling, (attempt, wait)


def test_backoff_delay_and_retry_after_parsing() -> None:
    assert backoff_delay(1, None, rand=lambda: 1.0) == 0.5
    assert backoff_delay(3, None, rand=lambda: 0.0) == 1.0
    assert backoff_delay(20, None, rand=lambda: 1.0) == 30.0
    assert backoff_delay(1, 7.0) == 7.0
    assert parse_retry_after("5") == 5.0
    assert parse_retry_after(" 0 ") == 0.0
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert parse_retry_after(format_datetime(now + timedelta(seconds=90), usegmt=True), now=now.timestamp()) == 90.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=90), usegmt=True), now=now.timestamp()) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-3") is None
    assert parse_retry_after(None) is None


def test_an_http_date_retry_after_is_honoured(server: LoopbackServer, memory: Memory) -> None:
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=20), usegmt=True)
    server.responder = script(Reply(429, {}, {"retry-after": later}), Reply(202))
    exporter = exporter_for(server, timeout=60)
    waits = Waits(exporter)
    assert exporter.export(spans(memory)) is SpanExportResult.SUCCESS
    [wait] = waits.seconds
    assert 15 < wait <= 20


def test_gives_up_when_retry_after_passes_the_deadline(server: LoopbackServer, memory: Memory, caplog: pytest.LogCaptureFixture) -> None:
    server.responder = lambda _r: Reply(503, {}, {"retry-after": "120"})
    exporter = exporter_for(server, timeout=10)
    waits = Waits(exporter)
    with caplog.at_level(logging.WARNING, logger="svc_sdk"):
        assert exporter.export(spans(memory)) is SpanExportResult.FAILURE
    assert waits.seconds == []
    assert len(server.posts()) == 1
    assert "dropping 2 spans after 1 attempts: HTTP 503" in caplog.text


@pytest.mark.parametrize("status", [400, 401, 403, 413, 415, 500])
def test_other_statuses_fail_at_once_and_say_why(server: LoopbackServer, memory: Memory, caplog: pytest.LogCaptureFixture, status: int) -> None:
    server.responder = lambda _r: Reply(status, {"error": {"code": "nope", "message": f"refused with {status}"}})
    exporter = exporter_for(server)
    waits = Waits(exporter)
    with caplog.at_level(logging.ERROR, logger="svc_sdk"):
        assert exporter.export(spans(memory)) is SpanExportResult.FAILURE
    assert waits.seconds == []
    assert len(server.posts()) == 1
    assert f"HTTP {status}" in caplog.text and f"refused with {status}" in caplog.text


def test_partial_success_is_logged(server: LoopbackServer, memory: Memory, caplog: pytest.LogCaptureFixture) -> None:
    server.responder = lambda _r: Reply(202, {"accepted_spans": 1, "partialSuccess": {"rejectedSpans": "1", "errorMessage": "spanId is not 16 hex"}})
    with caplog.at_level(logging.WARNING, logger="svc_sdk"):
        assert exporter_for(server).export(spans(memory)) is SpanExportResult.SUCCESS
    assert "rejected 1 of 2 spans: spanId is not 16 hex" in caplog.text


def test_a_full_success_logs_nothing(server: LoopbackServer, memory: Memory, caplog: pytest.LogCaptureFixture) -> None:
    server.responder = lambda _r: Reply(200, {"partialSuccess": {}})
    with caplog.at_level(logging.DEBUG, logger="svc_sdk"):
        assert exporter_for(server).export(spans(memory)) is SpanExportResult.SUCCESS
    assert caplog.text == ""


def test_connection_refused_is_retried_until_the_deadline_then_fails(memory: Memory) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exporter = OTLPJsonSpanExporter(f"http://127.0.0.1:{port}/v1/traces", timeout=5)
    waits = Waits(exporter)
    assert exporter.export(spans(memory)) is SpanExportResult.FAILURE
    assert len(waits.seconds) >= 1


def test_a_server_that_never_answers_fails_the_export_at_its_deadline(server: LoopbackServer, memory: Memory) -> None:
    server.responder = lambda _r: Reply(hang=True)
    exporter = exporter_for(server, timeout=0.5)
    assert exporter.export(spans(memory)) is SpanExportResult.FAILURE


def test_nothing_raises_into_the_application(server: LoopbackServer, caplog: pytest.LogCaptureFixture) -> None:
    broken = ReadableSpan(name="no context")  # no span context: cannot be encoded
    with caplog.at_level(logging.ERROR, logger="svc_sdk"):
        assert exporter_for(server).export([broken]) is SpanExportResult.FAILURE
    assert server.requests == []
    assert "exporting 1 spans failed" in caplog.text


def test_after_shutdown_nothing_is_sent(server: LoopbackServer, memory: Memory) -> None:
    exporter = exporter_for(server)
    exporter.shutdown()
    assert exporter.export(spans(memory)) is SpanExportResult.FAILURE
    assert server.requests == []


def test_shutdown_cuts_a_retry_wait_short(server: LoopbackServer, memory: Memory) -> None:
    asked = threading.Event()

    def respond(_r: object) -> Reply:
        asked.set()
        return Reply(503, {}, {"retry-after": "50"})

    server.responder = respond
    exporter = exporter_for(server, timeout=120)
    results: List[SpanExportResult] = []
    worker = threading.Thread(target=lambda: results.append(exporter.export(spans(memory))))
    worker.start()
    assert asked.wait(10)
    exporter.shutdown()
    worker.join(20)
    assert results == [SpanExportResult.FAILURE]
    assert len(server.posts()) == 1


def test_reads_the_opentelemetry_environment(server: LoopbackServer, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", server.url + "/")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=agents%20core,Authorization=Bearer%20t")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "none")
    monkeypatch.setenv("SVC_API_KEY", KEY)
    exporter = OTLPJsonSpanExporter()
    assert exporter.endpoint == server.url + "/v1/traces"
    assert exporter.export(spans(memory)) is SpanExportResult.SUCCESS
    [req] = server.requests
    assert req.path == "/v1/traces"
    assert req.headers["x-team"] == "agents core"
    assert req.headers["authorization"] == "Bearer t"
    assert req.headers["x-svc-api-key"] == KEY
    assert "content-encoding" not in req.headers
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", server.url + "/custom/traces")
    assert OTLPJsonSpanExporter().endpoint == server.url + "/custom/traces"
    assert parse_headers("a=1, b = 2 ,broken,=x") == {"a": "1", "b": "2"}


def test_works_alone_under_a_batch_span_processor(server: LoopbackServer) -> None:
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter_for(server)))
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("root"):
        with tracer.start_as_current_span("child"):
            pass
    assert provider.force_flush(10_000)
    provider.shutdown()
    names = sorted(s["name"] for r in server.posts() for rs in r.json()["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"])
    assert names == ["child", "root"]


def test_zero_code_instrumentation_picks_it_by_name(server: LoopbackServer) -> None:
    """opentelemetry-instrument with OTEL_TRACES_EXPORTER=svc_otlp_json (the package's entry point), configured by the environment alone."""
    instrument = Path(sys.executable).with_name("opentelemetry-instrument")
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src"),
        "OTEL_TRACES_EXPORTER": "svc_otlp_json", "OTEL_METRICS_EXPORTER": "none", "OTEL_LOGS_EXPORTER": "none",
        "OTEL_EXPORTER_OTLP_ENDPOINT": server.url, "SVC_API_KEY": KEY, "OTEL_SERVICE_NAME": "zero-code",
    }
    app = "from opentelemetry import trace\nwith trace.get_tracer('app').start_as_current_span('zero-code span'):\n    pass\n"
    done = subprocess.run([str(instrument), sys.executable, "-c", app], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [req] = server.posts()
    assert req.path == "/v1/traces" and req.headers["x-svc-api-key"] == KEY and req.headers["content-encoding"] == "gzip"
    [rs] = req.json()["resourceSpans"]
    assert {"key": "service.name", "value": {"stringValue": "zero-code"}} in rs["resource"]["attributes"]
    assert [s["name"] for ss in rs["scopeSpans"] for s in ss["spans"]] == ["zero-code span"]
