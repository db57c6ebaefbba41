"""The capture lookup fails closed: anything but a clean answer is capture off."""

from __future__ import annotations

import socket

import pytest

from fake_ingest import KEY, WS_ID, FakeIngest
from loopback import LoopbackServer, Reply
from svc_sdk import Workspace, fetch_sdk_config, normalize_endpoint


@pytest.fixture
def ingest(server: LoopbackServer) -> FakeIngest:
    return FakeIngest(server)


def test_the_services_answer_decides(ingest: FakeIngest) -> None:
    ingest.capture_text = True
    on = fetch_sdk_config(ingest.server.url, KEY)
    assert (on.capture_text, on.workspace, on.error) == (True, Workspace(WS_ID, "agents"), None)
    ingest.capture_text = False
    off = fetch_sdk_config(ingest.server.url + "/v1/traces", KEY)
    assert (off.capture_text, off.error) == (False, None)
    assert ingest.gets() == ["/v1/auth/whoami", f"/v1/workspaces/{WS_ID}/sdk-config"] * 2
    assert all(r.headers["x-svc-api-key"] == KEY for r in ingest.server.requests)


BROKEN = {
    "whoami 500": ("whoami", Reply(500, {"error": {"code": "internal", "message": "x"}}), "answered 500"),
    "whoami 401": ("whoami", Reply(401, {"error": {"code": "unauthorized", "message": "x"}}), "answered 401"),
    "whoami garbage": ("whoami", Reply(200, b"<html>proxy login</html>"), "JSONDecodeError"),
    "whoami without workspace": ("whoami", Reply(200, {"key_id": "k1"}), "without a workspace"),
    "whoami workspace id not a string": ("whoami", Reply(200, {"workspace": {"id": 7}}), "without a workspace"),
    "whoami a list": ("whoami", Reply(200, [1, 2]), "without a workspace"),
    "sdk-config 500": ("sdk-config", Reply(500, {"error": {"code": "internal", "message": "x"}}), "answered 500"),
    "sdk-config 403": ("sdk-config", Reply(403, {"error": {"code": "forbidden", "message": "x"}}), "answered 403"),
    "sdk-config garbage": ("sdk-config", Reply(200, b"{capture_text: true"), "JSONDecodeError"),
    "sdk-config capture_text a string": ("sdk-config", Reply(200, {"capture_text": "true"}), "without a boolean capture_text"),
    "sdk-config capture_text 1": ("sdk-config", Reply(200, {"capture_text": 1}), "without a boolean capture_text"),
    "sdk-config null": ("sdk-config", Reply(200, b"null"), "without a boolean capture_text"),
    "sdk-config 204 empty": ("sdk-config", Reply(204, b""), "answered 204"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_any_failure_is_capture_off(ingest: FakeIngest, case: str) -> None:
    which, reply, reason = BROKEN[case]
    ingest.capture_text = True  # the workspace captures: only the failure can turn it off
    setattr(ingest, "whoami" if which == "whoami" else "sdk_config", reply)
    result = fetch_sdk_config(ingest.server.url, KEY)
    assert result.capture_text is False
    assert result.error is not None and reason in result.error, result.error
    if which == "sdk-config":
        assert result.workspace == Workspace(WS_ID, "agents")


@pytest.mark.parametrize("which", ["whoami", "sdk-config"])
def test_a_lookup_that_never_answers_is_capture_off_at_the_deadline(ingest: FakeIngest, which: str) -> None:
    ingest.capture_text = True
    setattr(ingest, "whoami" if which == "whoami" else "sdk_config", Reply(hang=True))
    result = fetch_sdk_config(ingest.server.url, KEY, timeout=0.3)
    assert result.capture_text is False
    assert result.error is not None and ("timed out" in result.error), result.error


def test_nothing_listening_is_capture_off() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = fetch_sdk_config(f"http://127.0.0.1:{port}", KEY)
    assert result.capture_text is False
    assert result.error and "URLError" in result.error


def test_a_wrong_key_is_capture_off(ingest: FakeIngest) -> None:
    ingest.capture_text = True
    result = fetch_sdk_config(ingest.server.url, "dr_someoneElse")
    assert (result.capture_text, result.error) == (False, "GET /v1/auth/whoami answered 401")


def test_normalize_endpoint() -> None:
    assert normalize_endpoint("http://h:4318/") == "http://h:4318"
    assert normalize_endpoint(" http://h:4318/v1/traces ") == "http://h:4318"
    assert normalize_endpoint("https://ingest.example.com/base/v1/otlp/traces/") == "https://ingest.example.com/base"
