"""An OpenAI-compatible chat completions endpoint on loopback: answers with the
user's words echoed and fixed token usage."""

from __future__ import annotations

import time

from loopback import LoopbackServer, Reply, Request

MODEL = "gpt-4o-2024-08-06"
PROMPT_TOKENS = 1000
COMPLETION_TOKENS = 200


def respond(req: Request) -> Reply:
    if req.method != "POST" or not req.path.endswith("/chat/completions"):
        return Reply(404, {"error": {"message": f"no route {req.path}", "type": "invalid_request_error"}})
    asked = req.json()["messages"][-1]["content"]
    return Reply(200, {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": f"You asked: {asked}"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS, "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS},
    })


def fake_openai() -> LoopbackServer:
    return LoopbackServer(respond)
