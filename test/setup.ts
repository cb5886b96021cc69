import { hasTestEnvironment, startTestEnvironment, testEnvironment } from './helpers/environment.js';
import { closeTestApps } from './helpers/app.js';

/** Mocha root hooks: one environment for the whole run, torn down at the end. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    await startTestEnvironment();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await closeTestApps();
    if (hasTestEnvironment()) await testEnvironment().stop();
  },
};
