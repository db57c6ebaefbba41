"""One agent trace through a stock OpenTelemetry Python exporter, untouched.

    python stock_otlp_export.py http|grpc ENDPOINT API_KEY SERVICE_NAME

http: opentelemetry-exporter-otlp-proto-http (protobuf over HTTP, ENDPOINT is the
traces URL); grpc: opentelemetry-exporter-otlp-proto-grpc (ENDPOINT host:port,
insecure, gzip). Prints one JSON line: the trace id and the exporter's verdict.
"""

import json
import sys

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode


def main() -> None:
    kind, endpoint, key, service = sys.argv[1:5]
    if kind == "http":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter

        exporter = HttpExporter(endpoint=endpoint, headers={"x-svc-api-key": key}, timeout=10)
    else:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
        from grpc import Compression

        exporter = GrpcExporter(endpoint=endpoint, insecure=True, headers=(("x-svc-api-key", key),), compression=Compression.Gzip, timeout=10)

    # The spans are collected first and handed to the exporter by hand, to read its verdict.
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("stock-python", "1.0.0")
    with tracer.start_as_current_span("invoke_agent support", kind=SpanKind.INTERNAL) as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as llm:
            llm.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 1200, "gen_ai.usage.output_tokens": 300, "gen_ai.request.temperature": 0.2})
            llm.set_status(Status(StatusCode.OK))
        trace_id = format(root.get_span_context().trace_id, "032x")
    result = exporter.export(memory.get_finished_spans())
    exporter.shutdown()
    print(json.dumps({"trace_id": trace_id, "result": result.name}))


main()
