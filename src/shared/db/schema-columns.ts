/** Column shapes every table file of the Drizzle mirror shares. */
import { sql } from 'drizzle-orm';
import { bigint, timestamp } from 'drizzle-orm/pg-core';

export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const id64 = (name: string) => bigint(name, { mode: 'number' });
/** created_at and updated_at from the statement's own clock (rows written in one transaction still order). */
export const clockStamps = () => ({
  createdAt: ts('created_at')
    .notNull()
    .default(sql`clock_timestamp()`),
  updatedAt: ts('updated_at')
    .notNull()
    .default(sql`clock_timestamp()`),
});
