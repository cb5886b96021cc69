/**
 * Knobs of the fuzz suite, all from the environment so CI and a developer replaying a failure run
 * the same code:
 *
 *   FUZZ_RUNS          generated requests per operation in valid mode (default 80)
 *   FUZZ_HOSTILE_RUNS  generated requests per operation in hostile mode (default 2 × FUZZ_RUNS)
 *   FUZZ_PROPERTY_MS   time after which a property that has made its minimum runs stops (default 6000)
 *   FUZZ_BUDGET_S      time, from the first property, after which every remaining property stops as
 *                      soon as it has made its minimum runs (default 140): on a slow machine the
 *                      suite does fewer requests, never fewer than the minimums below
 *   FUZZ_SEED          fast-check seed of the whole run (default: random, printed; `.ci/run` pins it)
 *   FUZZ_OPS           regular expression on operation ids: fuzz only those (e.g. ^createPaymentLink$)
 *   FUZZ_SHRINK=1      stop each property at its first problem and let fast-check shrink it
 *                      (default: keep going and list every distinct problem with its smallest request)
 *   FUZZ_REPORT        file to write every problem found to, as JSON
 */
function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}

const runs = intEnv('FUZZ_RUNS', 80);
const hostileRuns = intEnv('FUZZ_HOSTILE_RUNS', runs * 2);
const seedFromEnv = process.env.FUZZ_SEED;

/** The runs a property aims for, and the fewest it may pass with whatever the clock says. */
export interface PropertyRuns {
  runs: number;
  minimum: number;
}

/**
 * Each kind of property's minimum is what it needs to have met every kind of input it draws from
 * at least once, on all but about 1 seed in 100 (a property whose time runs out before its minimum
 * keeps going until it gets there; one that still makes fewer runs fails):
 *
 * - valid requests, 50: a generated request picks among alternatives (an enum value, a `oneOf`
 *   branch, an optional field present or absent); with up to 8 of them, 8 × (7/8)^50 ≈ 1 %.
 * - hostile requests, 60: the rarest kind of mutation (bad credentials) is drawn 1 time in 13:
 *   (12/13)^60 < 1 %, the other four kinds far more often.
 * - the buyer pages' hostile cases, 80: 10 kinds of case drawn evenly: 10 × (9/10)^80 ≈ 0.2 %.
 * - unknown paths, 40: 2 APIs × 3 methods, 6 × (5/6)^40 ≈ 0.4 %; the buyer pages' unknown paths
 *   (random segments, nothing to cover by kind) take the same.
 *
 * A FUZZ_RUNS or FUZZ_HOSTILE_RUNS below a minimum lowers it: asked for, not shrunk quietly.
 */
const runsOf = (target: number, minimum: number): PropertyRuns => ({
  runs: target,
  minimum: Math.min(minimum, target),
});

export const fuzzConfig = {
  runs,
  hostileRuns,
  valid: runsOf(runs, 50),
  hostile: runsOf(hostileRuns, 60),
  buyerPages: runsOf(hostileRuns, 80),
  unknownPaths: runsOf(runs, 40),
  seed: seedFromEnv ? intEnv('FUZZ_SEED', 0) : Math.floor(Math.random() * 0x7fffffff),
  seedFromEnv: Boolean(seedFromEnv),
  only: process.env.FUZZ_OPS ? new RegExp(process.env.FUZZ_OPS) : undefined,
  shrink: process.env.FUZZ_SHRINK === '1',
  propertyMs: intEnv('FUZZ_PROPERTY_MS', 6_000),
  budgetMs: intEnv('FUZZ_BUDGET_S', 140) * 1000,
  reportFile: process.env.FUZZ_REPORT,
};

/** Each property gets its own seed derived from the run's, so one operation replays alone (FUZZ_OPS). */
export function seedFor(name: string): number {
  let hash = 0x811c9dc5;
  for (const char of name) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return (fuzzConfig.seed ^ hash) & 0x7fffffff;
}

export const replayHint = (): string =>
  `replay with FUZZ_SEED=${fuzzConfig.seed} FUZZ_RUNS=${fuzzConfig.runs} FUZZ_HOSTILE_RUNS=${fuzzConfig.hostileRuns}` +
  (process.env.FUZZ_OPS ? ` FUZZ_OPS='${process.env.FUZZ_OPS}'` : '');
