"""The two identity endpoints and the traces route of ingest, as a loopback server
answers them; each can be broken on purpose."""

from __future__ import annotations

from typing import Optional

from loopback import LoopbackServer, Reply, Request

WS_ID = "0b9f6e8e-3f64-4a39-9d36-4a8b2b1f2c01"
KEY = "dr_pythonSdkTestKey00000000000000000001"


class FakeIngest:
    def __init__(self, server: LoopbackServer, capture_text: bool = False) -> None:
        self.server = server
        self.capture_text = capture_text
        #: Replaces the answer of whoami or sdk-config ("whoami" / "sdk-config").
        self.whoami: Optional[Reply] = None
        self.sdk_config: Optional[Reply] = None
        server.responder = self.respond

    def respond(self, req: Request) -> Reply:
        if req.headers.get("x-svc-api-key") != KEY:
            return Reply(401, {"error": {"code": "unauthorized", "message": "invalid API key"}})
        if req.method == "GET" and req.path == "/v1/auth/whoami":
            return self.whoami or Reply(200, {"key_id": "k1", "role": "admin", "workspace": {"id": WS_ID, "slug": "agents", "name": "Agents"}})
        if req.method == "GET" and req.path == f"/v1/workspaces/{WS_ID}/sdk-config":
            return self.sdk_config or Reply(200, {"capture_text": self.capture_text})
        if req.method == "POST" and req.path == "/v1/traces":
            return Reply(202, {})
        return Reply(404, {"error": {"code": "not_found", "message": req.path}})

    def exported(self) -> str:
        """Every exported body, decompressed, as one text."""
        return "\n".join(r.body.decode() for r in self.server.posts())

    def gets(self) -> list[str]:
        return [r.path for r in self.server.requests if r.method == "GET"]
