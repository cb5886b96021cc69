import pg from 'pg';

/**
 * Row counts of everything a tenant owns, to prove a rejected request left nothing behind. The
 * tables are found from the database itself (a `company_id` column, or a chain of foreign keys to
 * one), so a new table is counted without touching this file.
 */
export class TenantRows {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly sql: string,
    readonly tables: string[],
  ) {}

  static async open(databaseUrl: string): Promise<TenantRows> {
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 2,
      idleTimeoutMillis: 2_000,
      allowExitOnIdle: true,
    });
    // The run's PostgreSQL stops in the root afterAll hook, which ends idle connections with an error.
    pool.on('error', () => undefined);
    const tables = (
      await pool.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
      )
    ).rows.map((r) => r.name);
    const companyColumn = new Set(
      (
        await pool.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.columns
            WHERE table_schema = 'public' AND column_name = 'company_id'`,
        )
      ).rows.map((r) => r.name),
    );
    const foreignKeys = (
      await pool.query<{ source: string; column: string; target: string; target_column: string }>(
        `SELECT cl.relname AS source, a.attname AS column, tcl.relname AS target, ta.attname AS target_column
           FROM pg_constraint c
           JOIN pg_class cl ON cl.oid = c.conrelid
           JOIN pg_class tcl ON tcl.oid = c.confrelid
           JOIN pg_namespace n ON n.oid = cl.relnamespace
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
           JOIN pg_attribute ta ON ta.attrelid = c.confrelid AND ta.attnum = c.confkey[1]
          WHERE c.contype = 'f' AND n.nspname = 'public' AND array_length(c.conkey, 1) = 1`,
      )
    ).rows;
    const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
    // Shortest chain of foreign keys from each table to one that names the company.
    const counts: string[] = [];
    const counted: string[] = [];
    for (const table of tables) {
      let query: string | undefined;
      if (table === 'companies') query = `SELECT count(*) FROM companies WHERE id = ANY($1)`;
      else if (companyColumn.has(table))
        query = `SELECT count(*) FROM ${ident(table)} WHERE company_id = ANY($1)`;
      else {
        const queue: Array<{ at: string; joins: string[]; alias: string }> = [
          { at: table, joins: [], alias: 't0' },
        ];
        const seen = new Set([table]);
        while (queue.length > 0 && !query) {
          const step = queue.shift();
          if (!step || step.joins.length > 3) break;
          for (const fk of foreignKeys.filter((f) => f.source === step.at)) {
            if (seen.has(fk.target)) continue;
            seen.add(fk.target);
            const alias = `t${step.joins.length + 1}`;
            const joins = [
              ...step.joins,
              `JOIN ${ident(fk.target)} ${alias} ON ${alias}.${ident(fk.target_column)} = ${step.alias}.${ident(fk.column)}`,
            ];
            if (fk.target === 'companies')
              query = `SELECT count(*) FROM ${ident(table)} t0 ${joins.join(' ')} WHERE ${alias}.id = ANY($1)`;
            else if (companyColumn.has(fk.target)) {
              query = `SELECT count(*) FROM ${ident(table)} t0 ${joins.join(' ')} WHERE ${alias}.company_id = ANY($1)`;
            }
            if (query) break;
            queue.push({ at: fk.target, joins, alias });
          }
        }
      }
      if (query) {
        counts.push(`(${query}) AS ${ident(table)}`);
        counted.push(table);
      }
    }
    return new TenantRows(pool, `SELECT ${counts.join(', ')}`, counted);
  }

  async snapshot(companyIds: number[]): Promise<Record<string, number>> {
    const res = await this.pool.query<Record<string, string>>(this.sql, [companyIds]);
    const row = res.rows[0] ?? {};
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
  }

  /** Tables whose count changed, as `table +n`. */
  static diff(before: Record<string, number>, after: Record<string, number>): string[] {
    return Object.keys(after)
      .filter((t) => after[t] !== before[t])
      .map(
        (t) =>
          `${t} ${(after[t] ?? 0) - (before[t] ?? 0) > 0 ? '+' : ''}${(after[t] ?? 0) - (before[t] ?? 0)}`,
      );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
