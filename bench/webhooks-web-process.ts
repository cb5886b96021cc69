/**
 * The web side of `npm run bench:webhooks`'s latency runs, in the Procfile's shape: a compiled
 * process of its own (apart from the worker and from the bench's receiver) that commits events one
 * transaction each, as the API's requests do, and publishes each after its commit. It answers
 * `web-ready`, then, for each stdin line `<rate> <seconds>`, commits at that rate and answers one
 * line `committed <rate achieved> <JSON [event id, epoch ms of its commit][]>`.
 */
import readline from 'node:readline';
import { configuredStores, createContext } from '../src/infra/bootstrap.js';
import { loadConfig } from '../src/shared/config.js';
import { createLogger } from '../src/shared/logger.js';
import { commitAtRate, commitBenchEvent } from './harness/commits.js';
import { epochNow } from './harness/util.js';

const config = loadConfig();
const companyId = Number(process.env.BENCH_COMPANY_ID);
const owned = createContext(config, createLogger(config.logLevel), configuredStores(config), 20);
// Connected before the first commit, as a web process that has served requests is.
await owned.ctx.pool.query('SELECT 1');
await owned.ctx.redis.ping();
process.stdout.write('web-ready\n');

for await (const line of readline.createInterface({ input: process.stdin })) {
  const [rate, seconds] = line.split(' ').map(Number);
  if (rate === undefined || seconds === undefined) continue;
  const committed: Array<[string, number]> = [];
  const achieved = await commitAtRate(rate, seconds, () =>
    commitBenchEvent(owned.ctx, companyId, null, (id) => committed.push([id, epochNow()])),
  );
  process.stdout.write(`committed ${achieved.toFixed(1)} ${JSON.stringify(committed)}\n`);
}
await owned.close();
