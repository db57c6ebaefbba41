-- alignment_documents_v1 and alignment_chunks_v1: the workspace's policy documents
-- and their embedded passages (docs/engines.md, "alignment").
--
-- A document is uploaded through the API (POST .../alignment/docs), which writes
-- its 'uploaded' row here and produces the extracted text on alignment.documents.v1;
-- the document worker (group alignment-documents) chunks and embeds it into
-- alignment_chunks_v1, then writes its 'embedded' row. DELETE .../docs/{doc_id}
-- writes a 'deleted' row and deletes the document's chunks.
--
-- ReplacingMergeTree(version) with version = status rank * 10^13 + updated epoch ms
-- (uploaded 0, embedded/failed 1, deleted 2): a later state always wins the merge,
-- and 'deleted' wins even over an 'embedded' row a worker writes after the delete
-- (an upload deleted before its embedding finished stays deleted). Reads take
-- argMax(..., version), so they are right before the merge too.
CREATE TABLE IF NOT EXISTS alignment_documents_v1
(
    workspace_id    UUID,
    doc_id          String,
    filename        String                 COMMENT 'As uploaded (informational)',
    content_type    LowCardinality(String) COMMENT 'text/plain, text/markdown, text/html or application/pdf',
    bytes           UInt64                 COMMENT 'Size of the uploaded file',
    text_chars      UInt64                 COMMENT 'Characters of text extracted from it',
    status          LowCardinality(String) COMMENT 'uploaded, embedded, failed or deleted',
    version         UInt64                 COMMENT 'status rank * 10^13 + updated_at in ms: the newest state, deleted always last',
    chunks          UInt32                 COMMENT 'Passages embedded (0 until embedded)',
    embedding_model LowCardinality(String) COMMENT 'Model of its vectors: local:hash-uni-bigram-256-v1 or provider:model',
    error           String                 COMMENT 'Why embedding failed, or why the local model stood in for the provider''s',
    uploaded_at     DateTime64(3, 'UTC'),
    updated_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (workspace_id, doc_id)
COMMENT 'Policy documents per workspace: newest state wins, deleted wins over everything';

-- One row per passage of an embedded document. ORDER BY puts a workspace's vectors
-- of one model together: a search reads exactly those (cosineDistance over every
-- passage of the workspace; policies are small, thousands of passages at most).
-- ReplacingMergeTree(embedded_at): a document record replayed after a crash writes
-- the same passages again and they collapse.
CREATE TABLE IF NOT EXISTS alignment_chunks_v1
(
    workspace_id    UUID,
    embedding_model LowCardinality(String) COMMENT 'Which model made the vector: a search compares only vectors of one model',
    doc_id          String,
    chunk_index     UInt32,
    text            String                 COMMENT 'The passage as embedded (with its section heading)' CODEC(ZSTD(3)),
    embedding       Array(Float32)         COMMENT 'L2-normalised vector',
    embedded_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(embedded_at)
ORDER BY (workspace_id, embedding_model, doc_id, chunk_index)
COMMENT 'Embedded policy passages, searched by cosineDistance';
