"""Which span attributes and events carry prompt or completion text.

The rule is data, ``content_keys.json``: a byte-identical copy of the list the
ingest service and the TypeScript SDK apply (``services/sdk/src/content-keys.json``),
so the three can never disagree. Covered: OpenTelemetry GenAI, OpenLLMetry and
OpenInference. Roles, models, token counts and everything else stay.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Mapping, Optional, TypeVar

V = TypeVar("V")

_RULES = json.loads(resources.files(__package__).joinpath("content_keys.json").read_text(encoding="utf-8"))

#: Attribute keys whose value is prompt or completion text (matched as a whole key).
#: ASCII: JavaScript's ``\\d`` is 0-9 only, Python's would also take other digits.
TEXT_ATTRIBUTE_PATTERN: re.Pattern[str] = re.compile(
    "(?:" + "|".join(_RULES["text_attribute_patterns"]) + ")", re.ASCII
)

#: Span events whose attributes are message text as a whole (OpenTelemetry GenAI events).
TEXT_EVENT_NAMES: frozenset[str] = frozenset(_RULES["text_event_names"])


def is_text_attribute(key: str) -> bool:
    """True for an attribute key holding prompt or completion text."""
    # fullmatch, not ^...$: Python's $ also matches before a trailing newline.
    return TEXT_ATTRIBUTE_PATTERN.fullmatch(key) is not None


def is_text_event(name: Optional[str]) -> bool:
    """True for an event whose every attribute is message text."""
    return (name or "") in TEXT_EVENT_NAMES


def is_text_event_attribute(event_name: Optional[str], key: str) -> bool:
    """True for an attribute of the named event that holds text."""
    return is_text_event(event_name) or is_text_attribute(key)


def strip_text_attributes(attrs: Mapping[str, V]) -> Mapping[str, V]:
    """A copy of ``attrs`` without its text attributes; ``attrs`` itself when it holds no text."""
    if not any(is_text_attribute(k) for k in attrs):
        return attrs
    return {k: v for k, v in attrs.items() if not is_text_attribute(k)}


def strip_text_event_attributes(event_name: Optional[str], attrs: Mapping[str, V]) -> Mapping[str, V]:
    """Like :func:`strip_text_attributes`, for the attributes of an event called ``event_name``."""
    if is_text_event(event_name):
        return {} if attrs else attrs
    return strip_text_attributes(attrs)
