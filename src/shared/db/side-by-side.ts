import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Executor } from './index.js';

type Results<T extends readonly (() => Promise<unknown>)[]> = {
  -readonly [K in keyof T]: Awaited<ReturnType<T[K]>>;
};

/**
 * Reads run side by side on the pool (each on a connection of its own), one after another inside a
 * transaction: a transaction is one connection, which runs one query at a time (pg deprecates
 * queueing a query on a connection that is busy).
 */
export async function sideBySide<const T extends readonly (() => Promise<unknown>)[]>(
  executor: Executor,
  reads: T,
): Promise<Results<T>> {
  if (!(executor instanceof PgTransaction))
    return (await Promise.all(reads.map((read) => read()))) as Results<T>;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as Results<T>;
}
