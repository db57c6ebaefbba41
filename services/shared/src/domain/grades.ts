/** The nine letter grades of the reliability scorer, worst to best (spec "Grades"). */
export const GRADES = ['D', 'C', 'C+', 'B-', 'B', 'B+', 'A-', 'A', 'A+'] as const
export type Grade = (typeof GRADES)[number]

export const isGrade = (s: string): s is Grade => (GRADES as readonly string[]).includes(s)

/** D=0 ... A+=8; the rank stored beside each grade so `grade_min` is a plain comparison. */
export const gradeRank = (g: Grade): number => GRADES.indexOf(g)
