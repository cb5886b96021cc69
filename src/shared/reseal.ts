/**
 * The walk of `cli credentials reseal` through one table of sealed values (docs/operations.md,
 * "Rotating the credentials key"): one short transaction per row, in batches by id, so a running
 * change of a row waits for one row at most, and a reseal stopped half-way is run again from the
 * start (values already under the newest key are skipped). Each room that stores sealed values says
 * which of its rows hold some and how one is resealed (src/integrations/reseal.ts,
 * src/gateways/accounts/reseal.ts).
 */
import { CredentialUnreadableError } from './credentials.js';
import type { Db, Executor } from './db/index.js';

/** Where one table's reseal stands: rows read, rows written, and rows whose values no key opened. */
export interface ResealProgress {
  table: string;
  checked: number;
  resealed: number;
  unreadable: number[];
}

/** One table of sealed values. */
export interface SealedTable {
  table: string;
  /** The ids of rows holding sealed values after `afterId`, in order, `limit` of them. */
  idsAfter(db: Executor, afterId: number, limit: number): Promise<number[]>;
  /** Seals the row's values again under the ring's newest key, under its lock; whether it wrote anything. */
  reseal(tx: Executor, id: number): Promise<boolean>;
}

/** Reseals one table, calling `onBatch` after each batch; answers its final count. */
export async function resealTable(
  db: Db,
  sealed: SealedTable,
  batch: number,
  onBatch: (progress: ResealProgress) => void,
): Promise<ResealProgress> {
  const progress: ResealProgress = { table: sealed.table, checked: 0, resealed: 0, unreadable: [] };
  for (let after = 0; ;) {
    const ids = await sealed.idsAfter(db, after, batch);
    for (const id of ids) {
      try {
        if (await db.transaction((tx) => sealed.reseal(tx, id))) progress.resealed += 1;
      } catch (err) {
        // A value no key of the ring opens stays as it is, and is reported: the others go on.
        if (!(err instanceof CredentialUnreadableError)) throw err;
        progress.unreadable.push(id);
      }
      progress.checked += 1;
    }
    onBatch({ ...progress, unreadable: [...progress.unreadable] });
    const last = ids.at(-1);
    if (ids.length < batch || last === undefined) return progress;
    after = last;
  }
}
