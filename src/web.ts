import { startWebServer } from './apps/server.js';
import { boot } from './shared/bootstrap.js';
import { onShutdown } from './shared/shutdown.js';

/** Procfile `web`: the three HTTP apps only. */
const runtime = await boot();
const web = await startWebServer(runtime.ctx);
runtime.ctx.logger.info({ port: web.port, urls: runtime.ctx.config.urls }, 'web listening');
onShutdown(runtime.ctx.logger, async () => {
  await web.close();
  await runtime.close();
});
