import { describe, expect, it } from 'vitest'
import { SKIP_REASONS } from '@svc/shared/domain/engine-sampling'
import { skippedNote } from './skipped'

describe('skippedNote', () => {
  it('says why for every reason the API gives', () => {
    for (const reason of SKIP_REASONS) expect(skippedNote('claims', reason)).not.toContain(`(${reason})`)
    expect(skippedNote('claims', 'too_large')).toBe(
      'No claims for this trace: this trace is larger than the engines load (SVC_ENGINE_MAX_TRACE_SPANS spans or SVC_ENGINE_MAX_TRACE_BYTES of attributes). It will not be computed.',
    )
  })

  it('still says the trace was skipped for a reason it does not know', () => {
    expect(skippedNote('decisions', 'quota')).toContain('the engine skipped this trace (quota)')
    expect(skippedNote('decisions', 'backlog')).toMatch(/unless more spans arrive for it\.$/)
  })
})
