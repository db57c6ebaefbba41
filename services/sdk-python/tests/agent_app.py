"""An agent as a user writes one: svc_sdk.init, OpenInference's OpenAI
instrumentation from PyPI, the openai client, the SDK's helpers. Run by
test_e2e_service.py as a process of its own; prints what it knows as JSON."""

import json
import os

import openai
from openinference.instrumentation.openai import OpenAIInstrumentor

import svc_sdk

secret = os.environ["SECRET"]
sdk = svc_sdk.init(
    api_key=os.environ["SVC_API_KEY"],
    endpoint=os.environ["SVC_ENDPOINT"],
    service_name="py-e2e",
    config_timeout=float(os.environ.get("CONFIG_TIMEOUT", "3")),
    config_refresh=0,
)
OpenAIInstrumentor().instrument()  # onto the global tracer provider init registered
client = openai.OpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test", max_retries=0)

with svc_sdk.end_user("user-77"), svc_sdk.agent_span("support-bot") as agent:
    trace_id = format(agent.get_span_context().trace_id, "032x")
    agent.set_attribute("input.value", f"{secret} agent input")
    with svc_sdk.retrieval_span("kb") as retrieval:
        retrieval.set_attribute("retrieval.documents.0.document.id", "kb/refunds.md")
    with svc_sdk.tool_span("lookup_order") as tool:
        tool.set_attributes({"gen_ai.tool.call.arguments": json.dumps({"q": secret}), "gen_ai.tool.call.result": secret})
    answer = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": f"{secret} where is my order?"}])

print(json.dumps({"trace_id": trace_id, "capture_text": sdk.capture_text, "error": sdk.config.error, "answer": answer.choices[0].message.content}))
sdk.shutdown()
