"""svc-sdk: OpenTelemetry tracing for AI agents, exported as OTLP/JSON to the svc
ingest API, with prompt and completion text sent only when the workspace captures
it (fail-closed: when the lookup fails, no text leaves the process).
"""

from ._version import __version__
from .config import DEFAULT_CONFIG_TIMEOUT, SdkConfigResult, Workspace, fetch_sdk_config, normalize_endpoint
from .content_keys import (
    TEXT_ATTRIBUTE_PATTERN,
    TEXT_EVENT_NAMES,
    is_text_attribute,
    is_text_event,
    is_text_event_attribute,
    strip_text_attributes,
    strip_text_event_attributes,
)
from .context import END_USER_ATTRIBUTE, PROJECT_ATTRIBUTE
from .exporter import OTLPJsonSpanExporter
from .helpers import (
    SDK_NAME,
    ContextValue,
    KindSpan,
    SpanKindName,
    agent_span,
    end_user,
    kind_attributes,
    mark_agent,
    mark_retrieval,
    mark_span,
    mark_tool,
    project,
    retrieval_span,
    set_end_user,
    set_project,
    tool_span,
)
from .processor import CaptureGate, ContentFilterSpanProcessor, without_text
from .sdk import SvcSdk, init

__all__ = [
    "__version__",
    "init",
    "SvcSdk",
    "OTLPJsonSpanExporter",
    "fetch_sdk_config",
    "normalize_endpoint",
    "SdkConfigResult",
    "Workspace",
    "DEFAULT_CONFIG_TIMEOUT",
    "CaptureGate",
    "ContentFilterSpanProcessor",
    "without_text",
    "agent_span",
    "tool_span",
    "retrieval_span",
    "KindSpan",
    "SpanKindName",
    "kind_attributes",
    "mark_span",
    "mark_agent",
    "mark_tool",
    "mark_retrieval",
    "set_end_user",
    "set_project",
    "end_user",
    "project",
    "ContextValue",
    "SDK_NAME",
    "END_USER_ATTRIBUTE",
    "PROJECT_ATTRIBUTE",
    "TEXT_ATTRIBUTE_PATTERN",
    "TEXT_EVENT_NAMES",
    "is_text_attribute",
    "is_text_event",
    "is_text_event_attribute",
    "strip_text_attributes",
    "strip_text_event_attributes",
]
