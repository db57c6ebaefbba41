-- spans_v1: the normalized GenAI facts of each span (shared/src/domain/genai.ts) and
-- how its cost was arrived at, so rollups (usage by model and provider, latency by
-- phase, unpriced calls) read columns instead of parsing attribute maps.
--
-- cost_usd is computed once, at assembly, and never recomputed: pricing_version
-- records the price table it came from, so a new table or a changed cost_provider
-- changes only the costs of later spans.
ALTER TABLE spans_v1
    ADD COLUMN IF NOT EXISTS provider           LowCardinality(String) COMMENT 'LLM provider (gen_ai.provider.name, gen_ai.system, llm.provider; else from the model name); empty if unknown' AFTER model,
    ADD COLUMN IF NOT EXISTS span_type          LowCardinality(String) COMMENT 'llm, embedding, tool, retrieval, agent, chain or other (from gen_ai.operation.name, openinference.span.kind, traceloop.span.kind)' AFTER provider,
    ADD COLUMN IF NOT EXISTS cache_read_tokens  UInt64 COMMENT 'Input tokens served from the provider cache (part of input_tokens)' AFTER output_tokens,
    ADD COLUMN IF NOT EXISTS cache_write_tokens UInt64 COMMENT 'Input tokens written to the provider cache (part of input_tokens)' AFTER cache_read_tokens,
    ADD COLUMN IF NOT EXISTS reasoning_tokens   UInt64 COMMENT 'Reasoning tokens (part of output_tokens)' AFTER cache_write_tokens,
    ADD COLUMN IF NOT EXISTS cost_source        LowCardinality(String) COMMENT 'reported (the span carried its cost), priced (from the price table), unpriced (LLM span of a model the table lacks: cost 0), or empty (not an LLM span)' AFTER cost_usd,
    ADD COLUMN IF NOT EXISTS pricing_version    LowCardinality(String) COMMENT 'Version of the price table that priced this span; empty when it was not priced' AFTER cost_source;
