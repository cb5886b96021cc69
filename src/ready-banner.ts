import type { Config } from './shared/config.js';
import { writesForPeople, type Logger } from './shared/logger.js';
import { ADMIN_QUEUES_PATH } from './apps/admin-board.js';
import { DASHBOARD_PATH } from './apps/dashboard.js';
import { describeSmtp } from './emails/transport.js';

/** Where each surface of a running web process is, as its users reach it. */
export function surfaceUrls(
  config: Config,
): Record<'payments' | 'panel' | 'checkout' | 'dashboard' | 'queues' | 'docs', string> {
  return {
    payments: `${config.urls.payments}/v1`,
    panel: config.urls.panel,
    checkout: config.urls.checkout,
    dashboard: `${config.urls.payments}${DASHBOARD_PATH}`,
    queues: `${config.urls.payments}${ADMIN_QUEUES_PATH}`,
    docs: `${config.urls.payments}/docs`,
  };
}

/**
 * Logs, once, that the web process is ready and where everything is: a short block in a terminal,
 * one structured line (`urls`) for machines.
 */
export function announceReady(
  logger: Logger,
  config: Config,
  ready: { port: number; startupMs?: number; inboxUrl?: string | undefined },
): void {
  const urls = surfaceUrls(config);
  const board = Boolean(config.admin.user && config.admin.password);
  const rows: Array<[string, string]> = [
    ['payments API', urls.payments],
    ['panel API', urls.panel],
    ['buyer pages', urls.checkout],
    ['dashboard', urls.dashboard],
    ['Bull Board', board ? urls.queues : `${urls.queues}  (off: set ADMIN_USER and ADMIN_PASSWORD)`],
    ['API docs', urls.docs],
  ];
  // E-mail to buyers: the private inbox `npm start` runs without SMTP_URL, or where SMTP_URL points.
  const smtp = config.email.smtpUrl;
  if (ready.inboxUrl)
    rows.push(['e-mail inbox', `${ready.inboxUrl}  (every e-mail sent; set SMTP_URL to send for real)`]);
  else if (smtp) rows.push(['e-mail', `via ${describeSmtp(smtp)}`]);
  const fields = {
    port: ready.port,
    urls,
    bullBoard: board,
    ...(ready.inboxUrl ? { inbox: ready.inboxUrl } : {}),
    ...(ready.startupMs === undefined ? {} : { startupMs: ready.startupMs }),
  };
  if (writesForPeople(logger)) {
    const took = ready.startupMs === undefined ? '' : ` in ${(ready.startupMs / 1000).toFixed(1)} s`;
    const lines = rows.map(([name, url]) => `    ${name.padEnd(13)} ${url}`);
    logger.info(`ready${took}, listening on port ${ready.port}\n${lines.join('\n')}`);
  } else {
    logger.info(fields, `ready: ${rows.map(([name, url]) => `${name} ${url}`).join(', ')}`);
  }
}
