"""init() end to end against a fake ingest on loopback: what leaves the process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pytest

import svc_sdk
from fake_ingest import KEY, WS_ID, FakeIngest
from loopback import LoopbackServer, Reply

SECRET = "SECRET-PROMPT-TEXT"
SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture
def ingest(server: LoopbackServer) -> FakeIngest:
    return FakeIngest(server)


def run_agent(sdk: svc_sdk.SvcSdk) -> None:
    with svc_sdk.end_user("user-42"), svc_sdk.agent_span("support-bot", tracer=sdk.tracer) as agent:
        agent.set_attribute("input.value", f"{SECRET} question")
        with sdk.tracer.start_as_current_span("chat gpt-4o") as llm:
            llm.set_attributes({
                "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 120,
                "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": SECRET}]}]),
                "llm.output_messages.0.message.content": SECRET,
            })
            llm.add_event("gen_ai.choice", {"index": 0, "message": SECRET})
    assert sdk.force_flush()


def start(ingest: FakeIngest, **kwargs: object) -> svc_sdk.SvcSdk:
    return svc_sdk.init(api_key=KEY, endpoint=ingest.server.url, register=False, config_refresh=0, service_name="py-test", **kwargs)  # type: ignore[arg-type]


def sent_attribute_keys(ingest: FakeIngest) -> set:  # type: ignore[type-arg]
    keys = set()
    for req in ingest.server.posts():
        for rs in req.json()["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    keys.update(kv["key"] for kv in span["attributes"])
    return keys


def test_capture_on_at_the_server_sends_the_text(ingest: FakeIngest) -> None:
    ingest.capture_text = True
    with start(ingest) as sdk:
        assert sdk.capture_text is True
        assert sdk.config.error is None and sdk.config.workspace == svc_sdk.Workspace(WS_ID, "agents")
        run_agent(sdk)
    assert ingest.gets() == ["/v1/auth/whoami", f"/v1/workspaces/{WS_ID}/sdk-config"]
    assert SECRET in ingest.exported()
    [post] = ingest.server.posts()
    assert post.headers["x-svc-api-key"] == KEY and post.headers["content-encoding"] == "gzip"
    resource = {kv["key"]: kv["value"] for kv in post.json()["resourceSpans"][0]["resource"]["attributes"]}
    assert resource["service.name"] == {"stringValue": "py-test"}


def test_capture_off_at_the_server_sends_none_and_keeps_the_rest(ingest: FakeIngest) -> None:
    with start(ingest, project_id="checkout") as sdk:
        assert sdk.capture_text is False and sdk.config.error is None
        run_agent(sdk)
    sent = ingest.exported()
    assert ingest.server.posts() and SECRET not in sent
    keys = sent_attribute_keys(ingest)
    assert {"gen_ai.request.model", "gen_ai.usage.input_tokens", "svc.end_user", "openinference.span.kind"} <= keys
    assert not keys & {"input.value", "gen_ai.input.messages", "llm.output_messages.0.message.content"}
    resource = {kv["key"]: kv["value"] for kv in ingest.server.posts()[0].json()["resourceSpans"][0]["resource"]["attributes"]}
    assert resource["svc.project_id"] == {"stringValue": "checkout"}


@pytest.mark.parametrize(
    "fault",
    [Reply(500, {"error": {"code": "internal", "message": "x"}}), Reply(200, b"garbage"), Reply(hang=True)],
    ids=["500", "garbage", "timeout"],
)
def test_fail_closed_when_sdk_config_fails(ingest: FakeIngest, fault: Reply, caplog: pytest.LogCaptureFixture) -> None:
    ingest.capture_text = True
    ingest.sdk_config = fault
    with start(ingest, config_timeout=0.5) as sdk:
        assert sdk.capture_text is False
        assert sdk.config.error
        run_agent(sdk)
    assert ingest.server.posts() and SECRET not in ingest.exported()
    assert "sdk-config lookup failed" in caplog.text


def test_capture_text_false_never_asks_and_sends_none(ingest: FakeIngest) -> None:
    ingest.capture_text = True
    with start(ingest, capture_text=False) as sdk:
        assert sdk.capture_text is False
        assert sdk.refresh_config() is False
        run_agent(sdk)
    assert ingest.gets() == []
    assert SECRET not in ingest.exported()


def test_a_failed_refresh_turns_capture_off(ingest: FakeIngest) -> None:
    ingest.capture_text = True
    with start(ingest) as sdk:
        assert sdk.capture_text is True
        ingest.sdk_config = Reply(503, {})
        assert sdk.refresh_config() is False
        assert sdk.capture_text is False and "503" in (sdk.config.error or "")
        run_agent(sdk)
        ingest.sdk_config = None
        assert sdk.refresh_config() is True
    assert SECRET not in ingest.exported()


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="api_key"):
        svc_sdk.init(api_key="", endpoint="http://127.0.0.1:1")
    with pytest.raises(ValueError, match="endpoint"):
        svc_sdk.init(api_key=KEY, endpoint="")
    with pytest.raises(ValueError, match="capture_text"):
        svc_sdk.init(api_key=KEY, endpoint="http://127.0.0.1:1", capture_text=True)  # type: ignore[arg-type]


def test_registered_globally_and_flushed_at_exit_without_shutdown(ingest: FakeIngest) -> None:
    """As a script uses it: the global provider, helpers without a tracer, no shutdown call."""
    script = textwrap.dedent(
        f"""
        import svc_sdk
        from opentelemetry import trace
        sdk = svc_sdk.init(api_key={KEY!r}, endpoint={ingest.server.url!r})
        assert trace.get_tracer_provider() is sdk.provider
        with svc_sdk.agent_span("exit-bot"):
            with trace.get_tracer("app").start_as_current_span("step"):
                pass
        """
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    names = {s["name"] for r in ingest.server.posts() for rs in r.json()["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]}
    assert names == {"invoke_agent exit-bot", "step"}
