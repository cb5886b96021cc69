/** The service's web process as production runs it, on the bench's database and Redis. */
import { startWebServer } from '../src/apps/server.js';
import { boot } from '../src/shared/bootstrap.js';

const runtime = await boot({ migrate: false });
const web = await startWebServer(runtime.ctx, 0, '127.0.0.1');
console.log(JSON.stringify({ port: web.port }));
process.on('SIGTERM', () => {
  void web
    .close(2000)
    .then(() => runtime.close())
    .then(() => process.exit(0));
});
