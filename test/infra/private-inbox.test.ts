import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createMailer } from '../../src/emails/transport.js';
import { resolveInfrastructure } from '../../src/infra/index.js';
import { PrivateInbox } from '../../src/infra/private-inbox.js';
import { ConfigError, loadConfig } from '../../src/shared/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { testEnvironment } from '../helpers/environment.js';

describe('the private e-mail inbox of npm start, and SMTP_URL in production', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-inbox-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('runs maildev on loopback: a message sent to its SMTP server shows in its web inbox, and it stops with its owner', async () => {
    // Its preferred web port is taken: it takes another, and says where.
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = (taken.address() as net.AddressInfo).port;
    const inbox = new PrivateInbox({ dir: path.join(dir, 'mail'), webPort: busy });
    await inbox.start();
    await new Promise((resolve) => taken.close(resolve));
    try {
      expect(inbox.webPort).to.not.equal(busy);
      expect(inbox.webUrl).to.equal(`http://localhost:${inbox.webPort}`);
      const mailer = createMailer({
        ...testEnvironment().config(),
        email: { ...testEnvironment().config().email, smtpUrl: inbox.smtpUrl },
      });
      try {
        await mailer.send({
          messageId: '<inbox-test@localhost>',
          from: { name: 'Loja', address: 'no-reply@localhost' },
          to: 'ana@example.com',
          replyTo: null,
          subject: 'Seu Pix de Curso para pagar',
          text: 'Olá',
          html: '<p>Olá</p>',
          attachments: [],
          headers: {},
        });
      } finally {
        mailer.close();
      }
      const listed = (await (await fetch(`http://127.0.0.1:${inbox.webPort}/email`)).json()) as Array<{
        subject: string;
        to: Array<{ address: string }>;
      }>;
      expect(listed.map((m) => [m.subject, m.to[0]?.address])).to.deep.equal([
        ['Seu Pix de Curso para pagar', 'ana@example.com'],
      ]);
    } finally {
      await inbox.stop();
    }
    const gone = await fetch(`http://127.0.0.1:${inbox.webPort}/email`).catch((err: unknown) => err);
    expect(gone).to.be.instanceOf(Error);
  });

  it('refuses, in production, a process that sends e-mail without SMTP_URL, naming the variable, before starting anything', async () => {
    const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: path.join(dir, 'data') });
    const refused = await resolveInfrastructure(config, createLogger('silent'), {
      redis: true,
      mail: true,
    }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(ConfigError);
    expect((refused as Error).message).to.include('SMTP_URL');
    // The worker's own check, should it be started some other way.
    expect(() => createMailer(config)).to.throw(ConfigError, /SMTP_URL/);
  });
});
