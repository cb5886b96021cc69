import type { AppContext } from '../shared/context.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal } from '../shared/http/principal.js';
import { json, ref } from '../shared/openapi/builders.js';
import { toEmailSettingsWire } from './mappers.js';
import { updateEmailSettingsBody } from './schemas.js';
import { getEmailSettings, updateEmailSettings } from './settings.js';

/** `GET`/`PATCH /email-settings`: the company's e-mail to its buyers (owners and members change it). */
export function emailSettingsRoutes(ctx: AppContext): Route[] {
  const tags = ['E-mail'];
  const company = (res: Parameters<typeof panelPrincipal>[0]): number => panelPrincipal(res).companyId;
  return [
    route(
      operation({
        method: 'get',
        path: '/email-settings',
        operationId: 'getEmailSettings',
        summary: 'Who the e-mails to buyers come from, where replies go, and which messages are sent',
        tags,
        request: {},
        responses: { '200': json(ref('EmailSettings'), 'The settings, defaults filled in') },
      }),
      async (_input, res) => {
        res.json(toEmailSettingsWire(await getEmailSettings(ctx.db, company(res))));
      },
    ),
    route(
      operation({
        method: 'patch',
        path: '/email-settings',
        operationId: 'updateEmailSettings',
        summary: 'Change the sender name, the support address or which messages are sent',
        description:
          'Any of the fields; a message kind left out of `messages` keeps its value, and `null` puts `sender_name` ' +
          'or `reply_to` back to its default. A change applies to messages sent from then on, those waiting for ' +
          'their time included (a reminder of a kind turned off is not sent).',
        tags,
        request: { body: updateEmailSettingsBody },
        responses: { '200': json(ref('EmailSettings'), 'The settings after the change') },
      }),
      async ({ body }, res) => {
        res.json(toEmailSettingsWire(await updateEmailSettings(ctx.db, company(res), body)));
      },
    ),
  ];
}
