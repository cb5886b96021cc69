/**
 * The one row an `INSERT … RETURNING` gave back. An insert that raised no error always returns its
 * row, so an empty result is a bug, thrown as a plain error (a 500), never a client's 4xx.
 */
export function insertedRow<T>(rows: readonly T[], table: string): T {
  const [row] = rows;
  if (!row) throw new Error(`insert into ${table} returned no row`);
  return row;
}
