import avro from 'avsc'
import { describe, expect, it } from 'vitest'
import { deadLetterV1 } from './records.js'

describe('loadAvroType', () => {
  it('reads a record written before the trailing fields with defaults were added', () => {
    // dead-letter.v1.avsc as it was before original_* were added.
    const before = avro.Type.forSchema({
      type: 'record',
      name: 'DeadLetter',
      namespace: 'svc.deadletters',
      fields: ['org_id', 'workspace_id', 'source', 'reason', 'payload'].map((name) => ({ name, type: 'string' })).concat([{ name: 'received_at_ms', type: 'long' }]),
    })
    const old = before.toBuffer({ org_id: 'o', workspace_id: 'w', source: 'ingest.otlp', reason: 'bad', payload: '{}', received_at_ms: 7 })
    expect(deadLetterV1.decode(old)).toMatchObject({ workspace_id: 'w', reason: 'bad', received_at_ms: 7, original_topic: '', original_partition: -1, original_offset: -1 })
  })

  it('still refuses bytes no version of the schema wrote', () => {
    expect(() => deadLetterV1.decode(Buffer.from([0xff, 0xff, 0xff]))).toThrow()
  })
})
