/**
 * Knobs of the fuzz suite, all from the environment so CI and a developer replaying a failure run
 * the same code:
 *
 *   FUZZ_RUNS          generated requests per operation in valid mode (default 80)
 *   FUZZ_HOSTILE_RUNS  generated requests per operation in hostile mode (default 2 × FUZZ_RUNS)
 *   FUZZ_PROPERTY_MS   longest one property (one operation, one mode) may run (default 6000)
 *   FUZZ_BUDGET_S      time after which every remaining property gets only 250 ms (default 140),
 *                      so the suite stays within 3 minutes on a slow machine
 *   FUZZ_SEED          fast-check seed of the whole run (default: random, printed)
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
const seedFromEnv = process.env.FUZZ_SEED;

export const fuzzConfig = {
  runs,
  hostileRuns: intEnv('FUZZ_HOSTILE_RUNS', runs * 2),
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
