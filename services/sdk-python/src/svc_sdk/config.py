"""The capture decision at start: ``whoami`` (which workspace the API key writes
into), then that workspace's ``sdk-config``. Fail-closed: any failure (network,
deadline, non-200, a body that is not the expected JSON) means
``capture_text = False``.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Optional

DEFAULT_CONFIG_TIMEOUT = 3.0
_MAX_BODY_BYTES = 1 << 20


@dataclass(frozen=True)
class Workspace:
    id: str
    slug: str


@dataclass(frozen=True)
class SdkConfigResult:
    #: True only when the service answered ``{"capture_text": true}``.
    capture_text: bool
    #: The workspace the key writes into, when whoami answered.
    workspace: Optional[Workspace] = None
    #: Why capture is off because of a failure (None when the service answered).
    error: Optional[str] = None


def normalize_endpoint(endpoint: str) -> str:
    """``http://host:4318/`` and ``http://host:4318/v1/traces`` -> ``http://host:4318``."""
    e = endpoint.strip().rstrip("/")
    for suffix in ("/v1/traces", "/v1/otlp/traces"):
        if e.endswith(suffix):
            e = e[: -len(suffix)]
    return e


class _Lookup:
    """One lookup, run on a thread of its own so that the deadline holds for the
    whole of it (urllib's timeout bounds each socket operation, not a request)."""

    def __init__(self, base: str, api_key: str, deadline: float) -> None:
        self.base = base
        self.api_key = api_key
        self.deadline = deadline
        self.workspace: Optional[Workspace] = None
        self.result: Optional[SdkConfigResult] = None

    def _get(self, path: str) -> Any:
        request = urllib.request.Request(
            self.base + path, headers={"x-svc-api-key": self.api_key, "accept": "application/json"}, method="GET"
        )
        timeout = max(self.deadline - time.monotonic(), 0.001)
        with urllib.request.urlopen(request, timeout=timeout) as response:
            if response.status != 200:
                raise RuntimeError(f"GET {path} answered {response.status}")
            return json.loads(response.read(_MAX_BODY_BYTES))

    def run(self) -> None:
        try:
            who = self._get("/v1/auth/whoami")
            ws = who.get("workspace") if isinstance(who, dict) else None
            ws_id = ws.get("id") if isinstance(ws, dict) else None
            if not isinstance(ws_id, str) or not ws_id:
                raise RuntimeError("whoami answered without a workspace")
            slug = ws.get("slug") if isinstance(ws, dict) else None
            self.workspace = Workspace(ws_id, slug if isinstance(slug, str) else "")
            cfg = self._get(f"/v1/workspaces/{urllib.parse.quote(ws_id, safe='')}/sdk-config")
            capture = cfg.get("capture_text") if isinstance(cfg, dict) else None
            if not isinstance(capture, bool):
                raise RuntimeError("sdk-config answered without a boolean capture_text")
            self.result = SdkConfigResult(capture, self.workspace)
        except urllib.error.HTTPError as err:
            path = urllib.parse.urlsplit(err.url or "").path
            self.result = SdkConfigResult(False, self.workspace, f"GET {path} answered {err.code}")
        except Exception as err:  # fail-closed: whatever went wrong, no text
            self.result = SdkConfigResult(False, self.workspace, f"{type(err).__name__}: {err}")


def fetch_sdk_config(endpoint: str, api_key: str, timeout: float = DEFAULT_CONFIG_TIMEOUT) -> SdkConfigResult:
    """Asks the service whether this key's workspace captures prompt and completion
    text. Never raises and returns within ``timeout`` seconds: a failure is
    ``SdkConfigResult(capture_text=False, error=...)``."""
    lookup = _Lookup(normalize_endpoint(endpoint), api_key, time.monotonic() + timeout)
    worker = threading.Thread(target=lookup.run, name="svc-sdk-config", daemon=True)
    worker.start()
    worker.join(timeout)
    result = lookup.result
    if result is None:  # a late answer is never applied: only this thread reads it, once
        return SdkConfigResult(False, lookup.workspace, f"timed out after {timeout:g} s")
    return result
