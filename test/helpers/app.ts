import type { AppContext } from '../../src/shared/context.js';
import { configuredStores, createContext } from '../../src/infra/bootstrap.js';
import { testLogger } from './captured-logs.js';
import { noteSecret } from './secrets.js';
import { startWebServer, type WebServer } from '../../src/apps/server.js';
import { seedCompany, type SeedOptions, type SeedResult } from '../../src/cli/seed.js';
import { testEnvironment } from './environment.js';
import { HttpClient } from './http.js';

/** The service started in-process on port 0, against the run's PostgreSQL and Redis. */
export interface TestApp {
  url: string;
  ctx: AppContext;
  http: HttpClient;
  web: WebServer;
  close(): Promise<void>;
}

const open = new Set<TestApp>();
let shared: Promise<TestApp> | undefined;

/** Starts a fresh app; `env` overrides configuration the way a deployment would (e.g. rate limits). */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config = testEnvironment().config(env);
  const owned = createContext(config, testLogger(config), configuredStores(config), 10);
  const { ctx } = owned;
  const web = await startWebServer(ctx);
  const app: TestApp = {
    url: web.url,
    ctx,
    web,
    http: new HttpClient(web.url, config),
    async close() {
      open.delete(app);
      await web.close(1000);
      await owned.close();
    },
  };
  open.add(app);
  return app;
}

/** One app shared by every test that needs no special configuration. */
export function sharedApp(): Promise<TestApp> {
  shared ??= startTestApp();
  return shared;
}

export async function closeTestApps(): Promise<void> {
  shared = undefined;
  await Promise.all([...open].map((app) => app.close()));
}

/** A new tenant with keys, token and catalog (see `cli seed`). */
export async function seed(options: SeedOptions = {}): Promise<SeedResult> {
  const app = await sharedApp();
  const seeded = await seedCompany(app.ctx.db, options);
  for (const value of [seeded.panel_token, ...Object.values(seeded.keys)]) noteSecret(value);
  return seeded;
}
