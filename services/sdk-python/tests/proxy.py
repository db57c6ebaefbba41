"""A loopback proxy in front of ingest: records what left the SDK's process and can
break the sdk-config lookup alone."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Optional

from loopback import LoopbackServer, Reply, Request

_HOP = {"host", "content-length", "connection", "transfer-encoding"}


class IngestProxy:
    def __init__(self, target: str) -> None:
        self.target = target
        self.sdk_config_fault: Optional[Reply] = None
        self.server = LoopbackServer(self._respond)

    @property
    def url(self) -> str:
        return self.server.url

    def _respond(self, req: Request) -> Reply:
        if req.path.endswith("/sdk-config") and self.sdk_config_fault is not None:
            return self.sdk_config_fault
        headers = {k: v for k, v in req.headers.items() if k not in _HOP}
        up = urllib.request.Request(self.target + req.path, data=req.raw if req.method == "POST" else None, headers=headers, method=req.method)
        try:
            with urllib.request.urlopen(up, timeout=30) as r:
                return Reply(r.status, r.read(), {"content-type": r.headers.get("content-type", "application/json")})
        except urllib.error.HTTPError as err:
            return Reply(err.code, err.read(), {"content-type": err.headers.get("content-type", "application/json")})

    def exported(self) -> str:
        """Every exported body since the last reset, decompressed, as one text."""
        return "\n".join(r.body.decode() for r in self.server.posts())

    def reset(self) -> None:
        self.server.requests.clear()
        self.sdk_config_fault = None

    def close(self) -> None:
        self.server.close()
