import { startWebServer } from './apps/server.js';
import { announceReady } from './ready-banner.js';
import { boot } from './shared/bootstrap.js';
import { onShutdown } from './shared/shutdown.js';

/** Procfile `web`: the three HTTP apps only. */
const runtime = await boot({ checkPort: true });
const web = await startWebServer(runtime.ctx).catch(runtime.abort);
announceReady(runtime.ctx.logger, runtime.ctx.config, { port: web.port });
onShutdown(runtime.ctx.logger, async () => {
  await web.close();
  await runtime.close();
});
