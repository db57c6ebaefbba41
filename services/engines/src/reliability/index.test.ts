import { GRADE_BANDS, gradeForScore } from '@svc/shared/domain/grades'
import { JUDGEMENT_VERSION, SCORER_VERSION } from '@svc/shared/domain/versions'
import { describe, expect, it } from 'vitest'
import type { Claim } from '../outputs.js'
import { contentReliability, scoreClaims } from './index.js'
import { chat, retrieval, viewOf } from './test-view.js'

const claim = (verdict: Claim['verdict'], confidence = 1): Claim => ({
  claim: 'x',
  supported: verdict === 'supported',
  confidence,
  evidence_span_id: verdict === 'unsupported' ? null : 'e',
  verdict,
  source: null,
})

describe('scoreClaims', () => {
  it('is null and ungraded without claims', () => {
    expect(scoreClaims([])).toEqual({ score: null, grade: '' })
  })

  it('grades the confidence-weighted share of supported claims', () => {
    expect(scoreClaims([claim('supported'), claim('supported')])).toEqual({ score: 1, grade: 'A+' })
    expect(scoreClaims([claim('unsupported')])).toEqual({ score: 0, grade: 'D' })
    const nine = Array.from({ length: 9 }, () => claim('supported'))
    expect(scoreClaims([...nine, claim('unsupported')])).toEqual({ score: 0.9, grade: 'A-' })
    // A doubtful gap counts less than a certain one.
    expect(scoreClaims([claim('supported'), claim('unsupported', 0.25)]).score).toBe(0.8)
  })

  it('weighs a contradiction like any claim the evidence does not back', () => {
    expect(scoreClaims([claim('supported'), claim('supported'), claim('contradicted')]).score).toBeCloseTo(0.6667, 4)
    expect(scoreClaims([claim('supported'), claim('supported'), claim('unsupported')]).score).toBeCloseTo(0.6667, 4)
  })

  it('uses the documented bands at every boundary', () => {
    for (const b of GRADE_BANDS) expect(gradeForScore(b.min)).toBe(b.grade)
    expect(gradeForScore(0.969)).toBe('A')
    expect(gradeForScore(0.499)).toBe('D')
  })
})

describe('contentReliability', () => {
  it('grades a trace and points each claim at its evidence', async () => {
    const v = viewOf([
      { id: '1'.repeat(16), attrs: retrieval([{ id: 'kb/sla.md', content: 'The Business tier guarantees 99.95% monthly uptime.' }]) },
      { id: '2'.repeat(16), attrs: chat([['user', 'What uptime?']], 'The Business tier guarantees 99.9% monthly uptime. Support answers within 4 hours.') },
    ])
    const r = await contentReliability(v)
    // Grades of another judgement carry another version.
    expect(r.scorer_version).toBe(SCORER_VERSION)
    expect(SCORER_VERSION).toBe(`reliability-${JUDGEMENT_VERSION}`)
    expect(r.claims.map((c) => [c.verdict, c.evidence_span_id])).toEqual([
      ['contradicted', '1'.repeat(16)],
      ['unsupported', null],
    ])
    expect(r.score).toBe(0)
    expect(r.grade).toBe('D')
  })

  it('is scored but ungradeable without output text', async () => {
    const r = await contentReliability(viewOf([{ id: '1'.repeat(16), attrs: chat([['user', 'hello']]) }]))
    expect(r).toEqual({ trace_id: 'ab'.repeat(16), grade: '', score: null, claims: [], scorer_version: SCORER_VERSION })
  })
})
