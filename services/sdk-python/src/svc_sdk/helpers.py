"""Helpers to mark agent, tool and retrieval spans the way the service (and the
OpenTelemetry GenAI and OpenInference conventions) recognise them, and to tag spans
with the end user and project. Each helper is a context manager (``with``,
``async with``) and a decorator (of plain and ``async`` functions).
"""

from __future__ import annotations

import functools
import inspect
from types import TracebackType
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Type, TypeVar, cast

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Tracer
from opentelemetry.util.types import AttributeValue

from ._version import __version__
from .context import END_USER_ATTRIBUTE, END_USER_KEY, PROJECT_ATTRIBUTE, PROJECT_KEY

SDK_NAME = "svc_sdk"
SpanKindName = Literal["agent", "tool", "retrieval"]
F = TypeVar("F", bound=Callable[..., Any])

_OPERATION: Dict[str, str] = {"agent": "invoke_agent", "tool": "execute_tool", "retrieval": "retrieval"}


def kind_attributes(kind: SpanKindName, name: str) -> Dict[str, AttributeValue]:
    """The attributes that make a span of the kind, in both conventions."""
    if kind == "agent":
        return {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, "openinference.span.kind": "AGENT"}
    if kind == "tool":
        return {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "tool.name": name, "openinference.span.kind": "TOOL"}
    if kind == "retrieval":
        return {"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": name, "openinference.span.kind": "RETRIEVER"}
    raise ValueError(f"span kind {kind!r} is not agent, tool or retrieval")


def mark_span(span: Span, kind: SpanKindName, name: str) -> Span:
    """Marks a span you started as an agent, tool or retrieval span."""
    span.set_attributes(kind_attributes(kind, name))
    return span


def mark_agent(span: Span, name: str) -> Span:
    return mark_span(span, "agent", name)


def mark_tool(span: Span, name: str) -> Span:
    return mark_span(span, "tool", name)


def mark_retrieval(span: Span, name: str) -> Span:
    return mark_span(span, "retrieval", name)


class _Scoped:
    """A context manager that is also a decorator: each decorated call, and each
    ``with``, enters a fresh scope, so one helper object can decorate a function
    that runs on many threads or tasks at once."""

    def __init__(self) -> None:
        self._stack: List[Any] = []

    def _fresh(self) -> _Scoped:
        raise NotImplementedError

    def _enter(self) -> Any:
        raise NotImplementedError

    def _exit(self, exc: Optional[BaseException]) -> None:
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self._enter()

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self._exit(exc)

    async def __aenter__(self) -> Any:
        return self._enter()

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self._exit(exc)

    def __call__(self, fn: F) -> F:
        if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
            raise TypeError(f"{fn.__qualname__} is a generator: use the helper as `with` inside it, not as its decorator")
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with self._fresh():
                    return await fn(*args, **kwargs)

            return cast(F, run_async)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self._fresh():
                return fn(*args, **kwargs)

        return cast(F, run)


class KindSpan(_Scoped):
    """A span of a kind, active while the block or decorated call runs; an exception
    is recorded and sets the status to ERROR. ``with`` gives the span."""

    def __init__(self, kind: SpanKindName, name: str, tracer: Optional[Tracer] = None, attributes: Optional[Mapping[str, AttributeValue]] = None) -> None:
        super().__init__()
        self.kind = kind
        self.name = name
        self.attributes: Dict[str, AttributeValue] = {**kind_attributes(kind, name), **(attributes or {})}
        self._tracer = tracer

    def _fresh(self) -> KindSpan:
        return KindSpan(self.kind, self.name, self._tracer, self.attributes)

    def _enter(self) -> Span:
        tracer = self._tracer or trace.get_tracer(SDK_NAME, __version__)
        cm = tracer.start_as_current_span(f"{_OPERATION[self.kind]} {self.name}", attributes=self.attributes)
        span = cm.__enter__()
        self._stack.append(cm)
        return span

    def _exit(self, exc: Optional[BaseException]) -> None:
        cm = self._stack.pop()
        cm.__exit__(type(exc) if exc else None, exc, exc.__traceback__ if exc else None)

    def __enter__(self) -> Span:
        return self._enter()

    async def __aenter__(self) -> Span:
        return self._enter()


def agent_span(name: str, *, tracer: Optional[Tracer] = None, attributes: Optional[Mapping[str, AttributeValue]] = None) -> KindSpan:
    """Span ``invoke_agent <name>``: ``gen_ai.operation.name=invoke_agent``,
    ``gen_ai.agent.name``, ``openinference.span.kind=AGENT``."""
    return KindSpan("agent", name, tracer, attributes)


def tool_span(name: str, *, tracer: Optional[Tracer] = None, attributes: Optional[Mapping[str, AttributeValue]] = None) -> KindSpan:
    """Span ``execute_tool <name>``: ``gen_ai.operation.name=execute_tool``,
    ``gen_ai.tool.name``, ``tool.name``, ``openinference.span.kind=TOOL``."""
    return KindSpan("tool", name, tracer, attributes)


def retrieval_span(name: str, *, tracer: Optional[Tracer] = None, attributes: Optional[Mapping[str, AttributeValue]] = None) -> KindSpan:
    """Span ``retrieval <name>``: ``gen_ai.operation.name=retrieval``,
    ``gen_ai.data_source.id``, ``openinference.span.kind=RETRIEVER``."""
    return KindSpan("retrieval", name, tracer, attributes)


def set_end_user(user_id: str, span: Optional[Span] = None) -> bool:
    """Sets ``svc.end_user`` on ``span`` (default: the current span). False when there is none."""
    target = span if span is not None else trace.get_current_span()
    if not target.is_recording():
        return False
    target.set_attribute(END_USER_ATTRIBUTE, user_id)
    return True


def set_project(project_id: str, span: Optional[Span] = None) -> bool:
    """Sets ``svc.project_id`` on ``span`` (default: the current span): the service
    files the trace under this project. False when there is no span."""
    target = span if span is not None else trace.get_current_span()
    if not target.is_recording():
        return False
    target.set_attribute(PROJECT_ATTRIBUTE, project_id)
    return True


class ContextValue(_Scoped):
    """A context value the SDK's processor copies onto every span started inside."""

    def __init__(self, key: str, value: str) -> None:
        super().__init__()
        self._key = key
        self._value = value

    def _fresh(self) -> ContextValue:
        return ContextValue(self._key, self._value)

    def _enter(self) -> None:
        self._stack.append(otel_context.attach(otel_context.set_value(self._key, self._value)))

    def _exit(self, exc: Optional[BaseException]) -> None:
        otel_context.detach(self._stack.pop())


def end_user(user_id: str) -> ContextValue:
    """Every span started inside gets ``svc.end_user = user_id``."""
    return ContextValue(END_USER_KEY, user_id)


def project(project_id: str) -> ContextValue:
    """Every span started inside gets ``svc.project_id = project_id``."""
    return ContextValue(PROJECT_KEY, project_id)
