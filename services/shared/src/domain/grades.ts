/** The nine letter grades of the reliability scorer, worst to best (spec "Grades"). */
export const GRADES = ['D', 'C', 'C+', 'B-', 'B', 'B+', 'A-', 'A', 'A+'] as const
export type Grade = (typeof GRADES)[number]

export const isGrade = (s: string): s is Grade => (GRADES as readonly string[]).includes(s)

/** D=0 ... A+=8; the rank stored beside each grade so `grade_min` is a plain comparison. */
export const gradeRank = (g: Grade): number => GRADES.indexOf(g)

/**
 * Score bands of the reliability scorer (score 0-1, lower bound inclusive): the
 * share of claims supported, weighted by confidence. A+ needs near-total support;
 * below 0.40 every grade is D. docs/engines.md explains the choice.
 */
export const GRADE_BANDS: ReadonlyArray<{ grade: Grade; min: number }> = [
  { grade: 'A+', min: 0.97 },
  { grade: 'A', min: 0.93 },
  { grade: 'A-', min: 0.9 },
  { grade: 'B+', min: 0.85 },
  { grade: 'B', min: 0.8 },
  { grade: 'B-', min: 0.75 },
  { grade: 'C+', min: 0.65 },
  { grade: 'C', min: 0.5 },
  { grade: 'D', min: 0 },
]

export function gradeForScore(score: number): Grade {
  for (const b of GRADE_BANDS) if (score >= b.min) return b.grade
  return 'D'
}
