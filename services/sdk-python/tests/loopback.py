"""A loopback HTTP server of the tests' own: records every request and answers what
the test scripts (a status, headers and body, or a hang)."""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional


@dataclass
class Request:
    method: str
    path: str
    headers: Dict[str, str]
    raw: bytes

    @property
    def body(self) -> bytes:
        return gzip.decompress(self.raw) if self.headers.get("content-encoding") == "gzip" else self.raw

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 200
    body: Any = b""
    headers: Dict[str, str] = field(default_factory=dict)
    #: Never answer (until the server closes).
    hang: bool = False


Responder = Callable[[Request], Reply]


class LoopbackServer:
    def __init__(self, responder: Optional[Responder] = None) -> None:
        self.requests: List[Request] = []
        self.responder: Responder = responder or (lambda _req: Reply(200, {}))
        self._closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                req = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
                server.requests.append(req)
                reply = server.responder(req)
                if reply.hang:
                    server._closing.wait(30)
                    return
                body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for k, v in {"content-type": "application/json", **reply.headers}.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def posts(self) -> List[Request]:
        return [r for r in self.requests if r.method == "POST"]

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()


def script(*replies: Reply) -> Responder:
    """Answers the replies in turn, then the last one again."""
    queue = list(replies)

    def respond(_req: Request) -> Reply:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return respond
