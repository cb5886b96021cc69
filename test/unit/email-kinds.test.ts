import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { EMAILED_EVENT_KINDS } from '../../src/emails/kinds.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The quoted event kinds of the first `type IN (…)` of a text. */
const kindsIn = (text: string): string[] =>
  [...(/type IN \(([^)]*)\)/.exec(text)?.[1] ?? '').matchAll(/'([a-z_.]+)'/g)].map((m) => m[1] ?? '');

describe('the event kinds that mail a buyer', () => {
  it('are the same in the code, the sweep’s index (migration 0951, which replaced 0921’s) and the repository’s statements', async () => {
    const index = await readFile(path.join(ROOT, 'migrations/0951_events_emails_pending_invoices.sql'), 'utf8');
    const repository = await readFile(path.join(ROOT, 'src/emails/repository.ts'), 'utf8');
    expect(kindsIn(index)).to.deep.equal([...EMAILED_EVENT_KINDS]);
    expect(kindsIn(repository)).to.deep.equal([...EMAILED_EVENT_KINDS]);
  });
});
