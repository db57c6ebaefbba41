"""The text-key rule against the vectors vitest runs too, and the shipped list
against the one the service and the TypeScript SDK read."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import svc_sdk
from svc_sdk import is_text_attribute, is_text_event_attribute, strip_text_attributes, strip_text_event_attributes

TS_SDK = Path(__file__).resolve().parents[2] / "sdk" / "src"
VECTORS = json.loads((TS_SDK / "content-keys.vectors.json").read_text(encoding="utf-8"))


def test_the_shipped_list_is_byte_for_byte_the_services() -> None:
    shipped = resources.files(svc_sdk).joinpath("content_keys.json").read_bytes()
    assert shipped == (TS_SDK / "content-keys.json").read_bytes(), "cp services/sdk/src/content-keys.json services/sdk-python/src/svc_sdk/content_keys.json"


def test_text_keys_of_every_convention_are_text() -> None:
    assert VECTORS["text"], "no vectors"
    for key in VECTORS["text"]:
        assert is_text_attribute(key), key


def test_look_alikes_are_not_text() -> None:
    assert "input.value\n" in VECTORS["kept"] and "gen_ai.prompt.\u0663.content" in VECTORS["kept"]
    for key in VECTORS["kept"]:
        assert not is_text_attribute(key), repr(key)


def test_event_vectors() -> None:
    for v in VECTORS["events"]:
        assert is_text_event_attribute(v["event"], v["key"]) is v["text"], v


def test_strip_copies_only_when_there_is_text() -> None:
    attrs = {k: f"v:{k}" for k in VECTORS["text"] + VECTORS["kept"]}
    out = strip_text_attributes(attrs)
    assert sorted(out) == sorted(VECTORS["kept"])
    assert len(attrs) == len(VECTORS["text"]) + len(VECTORS["kept"])
    clean = {"a": 1, "gen_ai.request.model": "gpt-4o"}
    assert strip_text_attributes(clean) is clean


def test_strip_event_attributes() -> None:
    assert strip_text_event_attributes("gen_ai.user.message", {"content": "secret", "role": "user"}) == {}
    assert strip_text_event_attributes("log", {"input.value": "secret", "level": "info"}) == {"level": "info"}
    empty: dict[str, str] = {}
    assert strip_text_event_attributes("gen_ai.choice", empty) is empty
