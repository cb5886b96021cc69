import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

/** Runs a module body in a fresh process (the registry is per process), answering its stdout. */
async function inFreshProcess(body: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], {
    cwd: ROOT,
    timeout: 60_000,
  });
  return stdout.trim();
}

/**
 * The `gateway` integration type's kind is the gateways room's, provided to the integration core at
 * start-up (src/gateways/install.ts): a process that forgot it must refuse to start, naming it, as the
 * workers refuse a queue without a processor.
 */
describe('the integration kinds provided at start-up', function () {
  this.timeout(120_000);

  it('refuses to build the panel routes when the gateways room did not provide its kind', async () => {
    const out = await inFreshProcess(`
      const { integrationsRoutes } = await import('./src/integrations/routes.ts');
      try {
        integrationsRoutes({}, () => undefined);
        console.log('built');
      } catch (err) {
        console.log(err.message);
      }`);
    expect(out).to.include('integration type gateway has no kind');
    expect(out).to.include('installGateways()');
  });

  it('builds them, and knows the gateway kind and its connection, once installGateways() ran', async () => {
    const out = await inFreshProcess(`
      const { installGateways } = await import('./src/gateways/install.ts');
      const { integrationsRoutes } = await import('./src/integrations/routes.ts');
      const { connectionOf, kindOf } = await import('./src/integrations/kinds/registry.ts');
      installGateways();
      installGateways();
      const routes = integrationsRoutes({}, () => undefined);
      console.log(JSON.stringify({
        routes: routes.length > 0,
        gateway: kindOf('gateway').types,
        connects: typeof connectionOf('gateway')?.requireAuthorization,
        webhook: connectionOf('webhook') === undefined,
      }));`);
    expect(JSON.parse(out)).to.deep.equal({
      routes: true,
      gateway: ['gateway'],
      connects: 'function',
      webhook: true,
    });
  });
});
