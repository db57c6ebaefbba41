/**
 * The labelled trace sets the evaluations read (tests/fixtures/engines*), one registry for
 * `pnpm eval:engines` and `pnpm eval:combiner`: key, title, loader, and whether a set's
 * misses may be listed (development) or only its aggregates (held out).
 */
import { asFixture, loadFixtures, loadV2, type Fixture } from '@svc/engines/test-support/fixtures'
import { loadV3Fixtures } from '../fixtures/engines-v3/fixtures-v3.js'
import { loadV4Fixtures } from '../fixtures/engines-v4/fixtures-v4.js'
import { loadV5Fixtures } from '../fixtures/engines-v5/fixtures-v5.js'
import { loadV6Fixtures } from '../fixtures/engines-v6/fixtures-v6.js'
import { loadV7Fixtures } from '../fixtures/engines-v7/fixtures-v7.js'
import { loadV8Fixtures } from '../fixtures/engines-v8/fixtures-v8.js'
import { loadV9Fixtures } from '../fixtures/engines-v9/fixtures-v9.js'
import { loadV10Fixtures } from '../fixtures/engines-v10/fixtures-v10.js'
import { loadTablesFixtures } from '../fixtures/engines-tables/fixtures-tables.js'

export interface TraceSet {
  key: string
  title: string
  load: () => Fixture[]
  /** A development set: its misses are listed. Held-out sets report aggregates only. */
  development: boolean
}

const set = (key: string, title: string, load: () => Fixture[], development: boolean): TraceSet => ({ key, title, load, development })

export const TRACE_SETS: TraceSet[] = [
  set('old', 'old set (tests/fixtures/engines, development)', loadFixtures, true),
  set('dev', 'v2 development set (engines-v2/dev)', () => loadV2('dev'), true),
  set('heldout', 'v2 held-out set (engines-v2/heldout)', () => loadV2('heldout'), false),
  // v3 to v7 were the blind sets until their final blind figures were recorded (their
  // READMEs); development since then.
  set('v3', 'v3 set (engines-v3/heldout, development since v4)', () => loadV3Fixtures().map(asFixture('v3')), true),
  set('v4', 'v4 set (engines-v4/heldout, development since v5)', () => loadV4Fixtures().map(asFixture('v4')), true),
  set('v5', 'v5 set (engines-v5/heldout, development since v6)', () => loadV5Fixtures().map(asFixture('v5')), true),
  set('v6', 'v6 set (engines-v6/heldout, development since v7)', () => loadV6Fixtures().map(asFixture('v6')), true),
  set('v7', 'v7 set (engines-v7/heldout, development since v8)', () => loadV7Fixtures().map(asFixture('v7')), true),
  set('v8', 'v8 set (engines-v8/heldout, development since v10)', () => loadV8Fixtures().map(asFixture('v8')), true),
  set('v9', 'v9 set (engines-v9/heldout, development since v10)', () => loadV9Fixtures().map(asFixture('v9')), true),
  set('tables', 'tables set (engines-tables/dev, development: answers with markdown tables)', () => loadTablesFixtures().map(asFixture('tables')), true),
  // The blind measurement (issue 14): never in the default sets, so an ordinary run never
  // spends one of its runs; aggregates only, like every held-out set. v10 was written for
  // round 11 (its README); v8 and v9, the blind sets of rounds 9 and 10, are development since.
  set('v10', 'v10 held-out set (engines-v10/heldout, blind)', () => loadV10Fixtures().map(asFixture('v10')), false),
]

/** The blind sets: read only when named, in aggregate, and never fit on. */
export const BLIND_SETS: ReadonlySet<string> = new Set(['v10'])

/** The sets an ordinary `pnpm eval:engines` reads, and the combiner is fit on: everything but the blind ones. */
export const DEFAULT_SETS = TRACE_SETS.filter((s) => !BLIND_SETS.has(s.key)).map((s) => s.key)
