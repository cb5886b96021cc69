import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/shared/db/index.js';
import { INJECTIONS } from '../fuzz/hostile.js';
import { capturedLogFile } from './captured-logs.js';
import { secretsSeen } from './secrets.js';

/** Buyer data and secrets the run left in PostgreSQL: every one of them must be absent from the logs. */
async function storedSensitiveValues(db: Db): Promise<string[]> {
  const result = await db.execute<{ value: string | null }>(sql`
    SELECT config->>'secret' AS value FROM integrations
    UNION SELECT state FROM gateway_authorizations
    UNION SELECT customer_email FROM payment_links
    UNION SELECT customer_document FROM payment_links
    UNION SELECT customer->>'email' FROM orders
    UNION SELECT customer->>'document' FROM orders
    UNION SELECT recipient FROM email_messages
    UNION SELECT token FROM email_messages`);
  return result.rows.map((r) => r.value).filter((v): v is string => typeof v === 'string' && v.length >= 8);
}

/**
 * After the whole suite: every API key, panel token, webhook secret, OAuth state and buyer e-mail or
 * document the run used is searched for in the captured service logs. Returns what leaked.
 */
export async function leakedIntoLogs(db: Db): Promise<{ searched: number; lines: number; leaks: string[] }> {
  const file = capturedLogFile();
  if (!file) return { searched: 0, lines: 0, leaks: [] };
  const logs = await readFile(file, 'utf8').catch(() => '');
  // A value of few distinct characters ("aaaa…", which the fuzz suite sends everywhere, URLs included)
  // would be found in the logs without any secret leaking: only distinctive values are searched.
  // Nor is an attack string the fuzz suite sends into every field (a webhook secret `constructor`,
  // say): it also travels in URLs, which the request log keeps.
  const injected = new Set(INJECTIONS);
  const distinctive = (value: string): boolean => new Set(value).size >= 6 && !injected.has(value);
  const values = [...new Set([...secretsSeen(), ...(await storedSensitiveValues(db))])].filter(distinctive);
  const leaks = values.filter(
    (value) => logs.includes(value) || logs.includes(JSON.stringify(value).slice(1, -1)),
  );
  return { searched: values.length, lines: logs.split('\n').length - 1, leaks };
}
