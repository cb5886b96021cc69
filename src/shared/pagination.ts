import { ValidationError } from './errors.js';

/** One page of a list, newest first. */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** The `starting_after` of a list request: the last item of the previous page. */
export interface Cursor<C> {
  value: C | undefined;
  /** Whether `value` names an item the caller can see. */
  isOwn: (value: C) => Promise<boolean>;
  /** What it must be, for the 400 ("the id of a delivery of this integration"). */
  names: string;
  /**
   * The list query finds the cursor's own row (scoped as `isOwn` is), so an unknown cursor matches
   * nothing: it is checked only when the page comes back empty, saving a query on every other page.
   */
  resolvedByQuery?: boolean;
}

/**
 * One page of a keyset list: `rows` returns up to `limit + 1` rows, and the one past `limit` tells
 * whether more follow. A cursor that is not the caller's is a 400 on `starting_after`, whatever the
 * filters.
 */
export async function cursorPage<T, C>(
  cursor: Cursor<C>,
  limit: number,
  rows: () => Promise<T[]>,
): Promise<Page<T>> {
  const notOwn = async (): Promise<boolean> =>
    cursor.value !== undefined && !(await cursor.isOwn(cursor.value));
  let found: T[];
  if (cursor.resolvedByQuery) {
    found = await rows();
    if (found.length === 0 && (await notOwn())) throw notOwnCursor(cursor.names);
  } else {
    // The page is read beside the cursor's check, not after it (a dashboard page is one round of
    // statements, docs/dashboard.md); both are scoped to the caller, and a foreign cursor's page is
    // dropped for the 400. Handled here too, so it is no unhandled rejection when the check fails.
    // Wrapped once: a drizzle query runs when `then` is called, and again on every further call.
    const listed = Promise.resolve(rows());
    listed.catch(() => undefined);
    if (await notOwn()) throw notOwnCursor(cursor.names);
    found = await listed;
  }
  return { items: found.slice(0, limit), hasMore: found.length > limit };
}

const notOwnCursor = (names: string): ValidationError =>
  ValidationError.field('starting_after', `is not the ${names}`);

/** A page as every list endpoint sends it. */
export const listBody = <T, W>(
  page: Page<T>,
  wire: (item: T) => W,
): { object: 'list'; data: W[]; has_more: boolean } => ({
  object: 'list',
  data: page.items.map(wire),
  has_more: page.hasMore,
});
