"""The real service for end-to-end tests: `pnpm start`'s entry (the all-in-one
process) on free loopback ports and a fresh data directory, as an operator runs it
(see tests/support/process.ts on the TypeScript side)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

REPO_ROOT = Path(__file__).resolve().parents[3]
KEY = "dr_pythonSdkE2eKey000000000000000000001"
WS = "/v1/observ/orgs/acme/workspaces/agents"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def eventually(check: Callable[[], Optional[T]], timeout: float = 30.0, every: float = 0.1) -> T:
    """Polls until ``check`` returns something other than None."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            value = check()
            if value is not None:
                return value
        except Exception as err:  # not there yet
            last = err
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s" + (f": {last!r}" if last else ""))
        time.sleep(every)


class Service:
    def __init__(self) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="svc-sdk-python-e2e-")
        self.ingest_url = f"http://127.0.0.1:{free_port()}"
        self.api_url = f"http://127.0.0.1:{free_port()}"
        self.log_path = Path(self.data_dir) / "service.log"
        env = {
            **os.environ,
            # Embedded log and chdb whatever the caller's environment points at.
            "SVC_BUS": "embedded", "KAFKA_BROKERS": "", "REDIS_URL": "", "CLICKHOUSE_URL": "",
            "SVC_DATA_DIR": self.data_dir, "SVC_HOST": "127.0.0.1",
            "SVC_INGEST_PORT": self.ingest_url.rsplit(":", 1)[1], "SVC_API_PORT": self.api_url.rsplit(":", 1)[1],
            "SVC_INIT_ORG_SLUG": "acme", "SVC_INIT_WORKSPACE_SLUG": "agents", "SVC_INIT_PROJECT_ID": "checkout-bot",
            "SVC_INIT_API_KEY": KEY, "SVC_INIT_USER_EMAIL": "owner@acme.test", "SVC_INIT_USER_PASSWORD": "correct horse battery staple",
            "SVC_QUIET_BOOTSTRAP": "true", "SVC_PASSWORD_SCRYPT_N": "1024", "SVC_TRACE_QUIET_MS": "500",
            # Cost is priced at assembly; the analysis engines are not under test here.
            "SVC_ENGINES": "none", "LOG_LEVEL": "warn",
        }
        node = os.environ.get("SVC_NODE") or shutil.which("node") or "node"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [node, "--import", "tsx", "services/all-in-one/src/main.ts"], cwd=REPO_ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        try:
            for url in (self.api_url, self.ingest_url):
                eventually(lambda: self._healthy(url), timeout=120)
        except BaseException:
            self.close()
            raise

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def _healthy(self, url: str) -> Optional[bool]:
        if self.process.poll() is not None:
            raise RuntimeError(f"the service exited ({self.process.returncode}):\n{self.output()}")
        with urllib.request.urlopen(url + "/health", timeout=5) as r:
            return True if r.status == 200 else None

    def api(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.api_url + path, data=data, method=method, headers={"x-svc-api-key": KEY, "content-type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def set_capture(self, on: bool) -> None:
        """PATCHes the workspace's capture-text setting, then waits until ingest's sdk-config says so."""
        assert self.api("PATCH", f"{WS}/settings/capture-text", {"capture_text": on}) is not None

        def applied() -> Optional[bool]:
            req = urllib.request.Request(self.ingest_url + "/v1/workspaces/agents/sdk-config", headers={"x-svc-api-key": KEY})
            with urllib.request.urlopen(req, timeout=5) as r:
                return True if json.loads(r.read())["capture_text"] is on else None

        eventually(applied)

    def trace(self, trace_id: str, spans: int) -> Any:
        """The trace detail once all its spans are in."""

        def complete() -> Any:
            try:
                detail = self.api("GET", f"{WS}/traces/{trace_id}")
            except urllib.error.HTTPError:
                return None
            return detail if len(detail["spans"]) == spans else None

        return eventually(complete)

    def trace_row(self, trace_id: str) -> Any:
        def listed() -> Any:
            rows = self.api("GET", f"{WS}/traces?page_size=100")["data"]
            return next((r for r in rows if r["trace_id"] == trace_id), None)

        return eventually(listed)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
