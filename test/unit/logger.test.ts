import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../src/shared/config.js';
import { logFormat } from '../../src/shared/logger.js';
import { announceReady } from '../../src/ready-banner.js';

describe('logs', () => {
  it('are pretty only on a terminal, unless LOG_FORMAT says otherwise', () => {
    // A test's stdout may be a terminal; the file descriptor 99 never is.
    expect(logFormat(1, { LOG_FORMAT: 'json' })).to.equal('json');
    expect(logFormat(1, { LOG_FORMAT: 'pretty' })).to.equal('pretty');
    expect(logFormat(99, {})).to.equal('json');
    expect(logFormat(99, { LOG_FORMAT: 'auto' })).to.equal('json');
    expect(() => logFormat(1, { LOG_FORMAT: 'fancy' })).to.throw(ConfigError, /LOG_FORMAT/);
  });

  it('say once, on one JSON line, where each surface, Bull Board and the docs are', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = loadConfig({
      PUBLIC_BASE_URL: 'https://pay.example.com',
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 'long enough',
    });
    announceReady(pino({}, sink), config, { port: 3000, startupMs: 1234 });
    expect(lines).to.have.length(1);
    const line = JSON.parse(lines[0] ?? '') as {
      urls: Record<string, string>;
      msg: string;
      bullBoard: boolean;
    };
    expect(line.urls).to.deep.equal({
      payments: 'https://pay.example.com/v1',
      panel: 'https://pay.example.com/panel/v1',
      checkout: 'https://pay.example.com/pay',
      dashboard: 'https://pay.example.com/dashboard',
      queues: 'https://pay.example.com/admin/queues',
      docs: 'https://pay.example.com/docs',
    });
    expect(line.bullBoard).to.equal(true);
    for (const url of Object.values(line.urls)) expect(line.msg).to.include(url);
  });
});
