import { expect } from 'chai';
import pg from 'pg';
import { MIGRATION_LOCK } from '../../src/shared/db/migrate.js';
import { eventually } from '../helpers/eventually.js';
import { databaseBefore } from '../helpers/migration-database.js';

const CONCURRENT_INDEX = '0708_delivery_attempts_by_integration_time';

interface IndexRow {
  name: string;
  valid: boolean;
  definition: string;
}

const INDEXES_OF_ATTEMPTS = `
  SELECT c.relname AS name, i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
   WHERE i.indrelid = 'delivery_attempts'::regclass AND c.relname LIKE 'delivery_attempts%integration%time%'
   ORDER BY 1`;

/**
 * Migration 0708 runs outside a transaction (CREATE INDEX CONCURRENTLY refuses to run inside one), on
 * a fresh database, on one that has 0705's index as first written, and again after a failed build.
 */
describe(`migration ${CONCURRENT_INDEX}`, function () {
  this.timeout(60_000);

  describe('on a database migrated before it', () => {
    const database = databaseBefore(CONCURRENT_INDEX);

    it('builds the index of attempts by integration and time, valid, and records the migration', async () => {
      const db = database();
      await db.migrate();
      expect(await db.query<IndexRow>(INDEXES_OF_ATTEMPTS)).to.deep.equal([]);
      await db.addMigration();
      expect(await db.migrate()).to.deep.equal([CONCURRENT_INDEX]);
      const [index, ...others] = await db.query<IndexRow>(INDEXES_OF_ATTEMPTS);
      expect(others).to.deep.equal([]);
      expect(index).to.include({ name: 'delivery_attempts_by_integration_time_idx', valid: true });
      expect(index?.definition).to.match(/\(integration_id, requested_at\)$/);
      expect(await db.migrate()).to.deep.equal([]);
    });
  });

  describe('run by two processes at once', () => {
    const database = databaseBefore(CONCURRENT_INDEX);

    it('is applied by one while the other waits its turn, without a deadlock', async () => {
      const db = database();
      await db.migrate();
      await db.addMigration();
      // Two migrators waiting for the migration lock, as when several processes start together; once
      // it is free, the one that waits must not hold a snapshot the other's CREATE INDEX CONCURRENTLY
      // waits for (PostgreSQL would fail one of them with "deadlock detected").
      const holder = new pg.Client({ connectionString: db.url });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        const both = Promise.all([db.migrate(), db.migrate()]);
        // (Asked on the holder's connection: the migrators have both of the pool's.)
        await eventually(
          async () => {
            const waiting = await holder.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND query ILIKE '%advisory_lock%' AND pid <> pg_backend_pid()`,
            );
            return (waiting.rows[0]?.n ?? 0) >= 2 ? true : undefined;
          },
          10_000,
          'both migrators waiting on the lock',
          20,
        );
        await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
        expect((await both).flat()).to.deep.equal([CONCURRENT_INDEX]);
      } finally {
        await holder.end();
      }
      expect((await db.query<IndexRow>(INDEXES_OF_ATTEMPTS)).map((i) => i.valid)).to.deep.equal([true]);
    });
  });

  describe("on a database that has 0705's index as first written", () => {
    const database = databaseBefore(CONCURRENT_INDEX);

    it('builds it again under its new name and drops the old one', async () => {
      const db = database();
      await db.migrate();
      await db.query(
        'CREATE INDEX delivery_attempts_integration_time_idx ON delivery_attempts (integration_id, requested_at)',
      );
      await db.addMigration();
      expect(await db.migrate()).to.deep.equal([CONCURRENT_INDEX]);
      const indexes = await db.query<IndexRow>(INDEXES_OF_ATTEMPTS);
      expect(indexes.map((i) => [i.name, i.valid])).to.deep.equal([
        ['delivery_attempts_by_integration_time_idx', true],
      ]);
    });
  });

  describe('after a build that failed half-way', () => {
    const database = databaseBefore(CONCURRENT_INDEX);

    it('drops the invalid index it left and builds it whole', async () => {
      const db = database();
      await db.migrate();
      // What a failed CREATE INDEX CONCURRENTLY leaves behind: an index marked invalid, and the
      // migration not recorded.
      await db.query(
        'CREATE INDEX delivery_attempts_by_integration_time_idx ON delivery_attempts (integration_id, requested_at)',
      );
      await db.query(
        `UPDATE pg_index SET indisvalid = false
          WHERE indexrelid = 'delivery_attempts_by_integration_time_idx'::regclass`,
      );
      expect((await db.query<IndexRow>(INDEXES_OF_ATTEMPTS))[0]?.valid).to.equal(false);
      await db.addMigration();
      expect(await db.migrate()).to.deep.equal([CONCURRENT_INDEX]);
      expect(await db.query<IndexRow>(INDEXES_OF_ATTEMPTS)).to.have.lengthOf(1);
      expect((await db.query<IndexRow>(INDEXES_OF_ATTEMPTS))[0]?.valid).to.equal(true);
    });
  });
});
