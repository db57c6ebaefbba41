from __future__ import annotations

from typing import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from loopback import LoopbackServer
from service_stack import Service


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    s = LoopbackServer()
    yield s
    s.close()


class Memory:
    """A tracer provider whose ended spans land in memory, straight (no filter)."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("test")

    def spans(self):  # type: ignore[no-untyped-def]
        return self.exporter.get_finished_spans()


@pytest.fixture
def memory() -> Iterator[Memory]:
    m = Memory()
    yield m
    m.provider.shutdown()


@pytest.fixture(scope="session")
def service() -> Iterator[Service]:
    """The real service (the all-in-one process), started once for the tests that need it."""
    s = Service()
    yield s
    s.close()
