import type { ApiDocument, Operation } from './documents.js';
import { checkJsonApiResponse, GROUP, prototypeChanges, type Report } from './oracle.js';
import { NoAnswerError, sendRaw, type RawRequest, type RawResponse } from './raw-http.js';
import { describeRequest, describeResponse, type ProblemLog } from './report.js';
import { TenantRows } from './rows.js';
import type { FuzzTenant, FuzzWorld } from './world.js';

export interface ProbeOptions {
  /** Prefix of every reason, e.g. the hostile change made to the request. */
  context?: string;
  /** Statuses Node's HTTP parser may answer before any app code runs (no envelope, no document). */
  bareStatuses?: number[];
  judge(res: RawResponse, report: Report): Promise<void> | void;
}

/**
 * Sends one request of `op` and applies every check an answer gets: the common JSON API checks, the
 * caller's own judgement, no row changed by a refused write, no polluted prototype.
 */
export async function probe(
  w: FuzzWorld,
  tenant: FuzzTenant,
  doc: ApiDocument,
  op: Operation,
  raw: RawRequest,
  log: ProblemLog,
  options: ProbeOptions,
): Promise<void> {
  const before = op.method === 'GET' ? undefined : await w.rows.snapshot([tenant.companyId]);
  log.requests += 1;
  let res: RawResponse;
  try {
    res = await sendRaw(w.baseUrl, raw);
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err;
    // Past Node's 16 kB header limit, Node's HTTP layer writes a 431 and destroys the socket at once,
    // with much of the request still unread: the client can meet the reset before the answer (the
    // test process on Node 24 does, for a 72 kB URL). No app code ran, as with a bare 431.
    if (raw.path.length > 16_384 && /\b(ECONNRESET|EPIPE)\b/.test(err.message)) return;
    log.add({
      group: GROUP.noAnswer,
      where: op.id,
      reason: err.message,
      request: describeRequest(raw, tenant.secrets),
      response: '-',
    });
    return;
  }
  const report: Report = (group, reason) =>
    log.add({
      group,
      where: op.id,
      // A body that breaks the document is the same problem whatever hostile change led to it.
      reason: options.context && group !== GROUP.responseMismatch ? `${options.context} → ${reason}` : reason,
      request: describeRequest(raw, tenant.secrets),
      response: describeResponse(res),
    });
  // Node's HTTP parser refuses an over-long request line itself (no app code, so no envelope).
  const bare = [...(options.bareStatuses ?? []), ...(raw.path.length > 8_000 ? [414, 431] : [])];
  if (bare.includes(res.status)) return;
  checkJsonApiResponse(doc, op, raw, res, report);
  await options.judge(res, report);
  if (before && res.status >= 400) {
    const changed = TenantRows.diff(before, await w.rows.snapshot([tenant.companyId]));
    if (changed.length > 0) report(GROUP.rowsLeft, `${res.status} yet ${changed.join(', ')}`);
  }
  if (op.method !== 'GET' && res.status < 300) tenant.pools.invalidate();
  const polluted = prototypeChanges();
  if (polluted) report(GROUP.prototype, polluted);
}
