import { findCoupon, findItemByCode } from '../catalog/repository.js';
import type { AppContext } from '../shared/context.js';
import type { Db, Executor } from '../shared/db/index.js';
import { isUniqueViolation } from '../shared/db/errors.js';
import { ConflictError, NotFoundError, ValidationError, type FieldErrors } from '../shared/errors.js';
import type { PaymentsPrincipal } from '../shared/http/principal.js';
import { newLinkId, newShortCode, sha256Hex } from '../shared/ids.js';
import { cursorPage, type Page } from '../shared/pagination.js';
import { recordLinkExpired } from './expiry.js';
import { isOverdue } from './payable.js';
import {
  findLink,
  findLinkById,
  findLinkByIdempotencyKey,
  findOrder,
  findSoldItem,
  insertLinkSelling,
  type SoldItem,
  linkExists,
  listLinks,
  type LinkInsert,
  type LinkRow,
  type LinkScope,
  type LinkWithOrder,
} from './repository.js';
import { CHECKOUT_OPTIONS, LIMITS, type CreateLinkBody, type ListLinksQuery } from './schemas.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../shared/enums/payment-methods.js';
import { cancelLink, expireLink } from './transitions.js';
import { CAMPAIGN_KEYS, pickTracking, type CampaignTracking } from '../shared/tracking.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whose links, in which mode: a payments key's, or a dashboard session's in the mode it chose. */
export type LinkOwner = Pick<PaymentsPrincipal, 'companyId' | 'livemode'>;

/** Key order and formatting must not make two equal bodies look different. */
/** A link's campaign as stored: values cleaned (control characters dropped), blanks dropped; none: null. */
function linkTracking(
  sent: Partial<Record<string, string | null>> | null | undefined,
): CampaignTracking | null {
  const kept = pickTracking(CAMPAIGN_KEYS, sent ?? {});
  return Object.keys(kept).length > 0 ? kept : null;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface CreatedLink extends LinkWithOrder {
  /** True when an earlier request with the same Idempotency-Key created this link. */
  replayed: boolean;
}

/** The link an earlier request with this key created, as a read would show it now. */
async function replay(db: Db, existing: LinkWithOrder, requestHash: string, now: Date): Promise<CreatedLink> {
  if (existing.link.requestHash !== requestHash) {
    throw new ConflictError('This Idempotency-Key was already used with a different request body');
  }
  const [current] = await catchUpExpiry(db, [existing], now);
  return { ...(current ?? existing), replayed: true };
}

/** What the request sells: the schema lets exactly one of the two codes through. */
const soldItem = (body: CreateLinkBody): SoldItem =>
  body.offer_code !== undefined
    ? { kind: 'offer', code: body.offer_code }
    : { kind: 'plan', code: body.plan_code ?? '' };

/**
 * Why the offer or plan cannot be sold by this company, if it cannot (the catalog's one rule): read
 * only when the create inserted nothing, or the request is refused for another field anyway.
 */
async function explainItem(db: Db, companyId: number, item: SoldItem): Promise<FieldErrors> {
  const { kind } = item;
  const found = await findItemByCode(db, kind, item.code);
  if (!found || found.companyId !== companyId)
    return { [`${kind}_code`]: [`no ${kind} with this code in your company`] };
  if (found.onSale) return {};
  return {
    [`${kind}_code`]: [
      found.status === 'active'
        ? `this ${kind} is not on sale (its product is inactive)`
        : `this ${kind} is not active`,
    ],
  };
}

const invalidRequest = (errors: FieldErrors): ValidationError =>
  new ValidationError(`Invalid request: ${Object.keys(errors).join(', ')}`, errors);

async function checkCoupon(
  db: Db,
  companyId: number,
  code: string | null | undefined,
  errors: FieldErrors,
): Promise<void> {
  if (code === undefined || code === null) return;
  const coupon = await findCoupon(db, companyId, code);
  if (!coupon) errors.coupon_code = ['no coupon with this code in your company'];
  else if (!coupon.active) errors.coupon_code = ['this coupon is not active'];
}

/** https only in production: a buyer's browser must not leave a paid checkout for a plain-http page. */
function checkSuccessUrl(
  successUrl: string | null | undefined,
  production: boolean,
  errors: FieldErrors,
): void {
  if (production && successUrl && !/^https:/i.test(successUrl)) errors.success_url = ['must be an https URL'];
}

/** The set of methods in the checkout's own order (the API accepts them in any order). */
const methodsOf = (given: readonly PaymentMethod[] | undefined): PaymentMethod[] =>
  PAYMENT_METHODS.filter((m) => given === undefined || given.includes(m));

function checkExpiry(expiresAt: string | undefined, now: Date, errors: FieldErrors): Date | null {
  if (expiresAt === undefined) return null;
  const at = new Date(expiresAt);
  if (at.getTime() <= now.getTime()) errors.expires_at = ['must be in the future'];
  else if (at.getTime() > now.getTime() + LIMITS.maxValidityDays * DAY_MS) {
    errors.expires_at = [`must be at most ${LIMITS.maxValidityDays} days after creation`];
  }
  return at;
}

/** A fresh id and short code; on the (astronomically rare) collision, new ones are drawn. */
async function insertWithFreshCodes(db: Db, values: Omit<LinkInsert, 'id' | 'shortCode'>, item: SoldItem) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await insertLinkSelling(db, { ...values, id: newLinkId(), shortCode: newShortCode() }, item);
    } catch (err) {
      const collided =
        isUniqueViolation(err, 'payment_links_short_code_key') ||
        isUniqueViolation(err, 'payment_links_pkey');
      if (!collided || attempt >= 3) throw err;
    }
  }
}

/**
 * Creates a link (`POST /v1/payment-links`). With an Idempotency-Key, the first request under that key for this
 * company and mode creates the link and every later one with the same body gets it back; the
 * unique index, not this code, decides which of several racing requests creates it.
 */
export async function createPaymentLink(
  ctx: Pick<AppContext, 'db' | 'config'>,
  principal: LinkOwner,
  body: CreateLinkBody,
  idempotencyKey: string | undefined,
  now = new Date(),
): Promise<CreatedLink> {
  const { db } = ctx;
  const { companyId, livemode } = principal;
  const requestHash = idempotencyKey === undefined ? null : sha256Hex(canonicalJson(body));
  if (idempotencyKey !== undefined && requestHash !== null) {
    const existing = await findLinkByIdempotencyKey(db, companyId, livemode, idempotencyKey);
    if (existing) return replay(db, existing, requestHash, now);
  }

  // The item is checked by the insert itself (one round trip); it is read on its own only to say
  // why a request is refused.
  const item = soldItem(body);
  const errors: FieldErrors = {};
  await checkCoupon(db, companyId, body.coupon_code, errors);
  const expiresAt = checkExpiry(body.expires_at, now, errors);
  checkSuccessUrl(body.success_url, ctx.config.env === 'production', errors);
  if (Object.keys(errors).length > 0) {
    throw invalidRequest({ ...(await explainItem(db, companyId, item)), ...errors });
  }

  const created = await insertWithFreshCodes(
    db,
    {
      companyId,
      livemode,
      customerName: body.customer?.name ?? null,
      customerEmail: body.customer?.email ?? null,
      customerPhone: body.customer?.phone ?? null,
      customerDocument: body.customer?.document ?? null,
      externalReference: body.external_reference ?? null,
      tracking: linkTracking(body.tracking),
      metadata: body.metadata ?? {},
      couponCode: body.coupon_code ?? null,
      singleUse: body.single_use ?? true,
      expiresAt,
      idempotencyKey: idempotencyKey ?? null,
      requestHash,
      paymentMethods: methodsOf(body.payment_methods),
      pixExpiresInSeconds: body.pix_expires_in_seconds ?? CHECKOUT_OPTIONS.pixExpiresInSeconds.default,
      boletoDueDays: body.boleto_due_days ?? CHECKOUT_OPTIONS.boletoDueDays.default,
      maxInstallments: body.max_installments ?? CHECKOUT_OPTIONS.maxInstallments.default,
      successUrl: body.success_url ?? null,
    },
    item,
  );
  // Nothing to schedule: the worker's expiry tick finds the link by its indexed expires_at.
  if (created) {
    return { link: created, order: null, replayed: false };
  }
  const refused = await explainItem(db, companyId, item);
  if (Object.keys(refused).length > 0) throw invalidRequest(refused);

  // Another request with this key won the insert (it has committed: the conflict waited for it).
  const winner =
    idempotencyKey === undefined
      ? undefined
      : await findLinkByIdempotencyKey(db, companyId, livemode, idempotencyKey);
  if (!winner || requestHash === null)
    throw new Error('idempotent insert conflicted but no link holds the key');
  return replay(db, winner, requestHash, now);
}

/**
 * Reads never show `active` past expires_at: when the expiry job is late, the read applies the
 * transition itself (in one transaction, so the event of the expiry can join it).
 */
async function catchUpExpiry(db: Db, found: LinkWithOrder[], now: Date): Promise<LinkWithOrder[]> {
  const overdue = found.filter((f) => isOverdue(f.link, now));
  if (overdue.length === 0) return found;
  const updated = new Map<string, LinkWithOrder>();
  await db.transaction(async (tx) => {
    for (const { link } of overdue) {
      const expired = await expireLink(tx, link.id, now);
      // The event commits with the expiry; the outbox sweep relays it.
      if (expired) await recordLinkExpired(tx, expired);
      // Not expired by us: something else changed it first (paid, canceled, or the job); show that.
      const current = expired ? { link: expired, order: null } : await findLinkById(tx, link.id);
      if (current) updated.set(link.id, { link: current.link, order: current.order ?? null });
    }
  });
  return found.map((f) => {
    const u = updated.get(f.link.id);
    return u ? { link: u.link, order: u.order ?? f.order } : f;
  });
}

// Link ids are `plink_` + base62. Anything else names no link, and a string holding U+0000 could
// not even be sent to PostgreSQL, so it is answered before any query.
const LINK_ID_SHAPE = /^[0-9A-Za-z_]{1,64}$/;

function checkLinkIdShape(linkId: string): void {
  if (!LINK_ID_SHAPE.test(linkId)) throw new NotFoundError('No payment link with this id');
}

/**
 * The 404 of a link the caller cannot see. When the company has it in the other mode the message
 * says so (as Stripe does), so a test key asking for a live link knows what went wrong.
 */
export async function linkNotFound(db: Executor, scope: LinkScope): Promise<NotFoundError> {
  const otherMode = { ...scope, livemode: !scope.livemode };
  if (await linkExists(db, otherMode)) {
    const [exists, used] = scope.livemode ? ['test', 'live'] : ['live', 'test'];
    return new NotFoundError(
      `No payment link ${scope.linkId} in ${used} mode; it exists in ${exists} mode, but a ${used} key was used`,
    );
  }
  return new NotFoundError(`No payment link ${scope.linkId}`);
}

export async function getPaymentLink(db: Db, scope: LinkScope, now = new Date()): Promise<LinkWithOrder> {
  checkLinkIdShape(scope.linkId);
  const found = await findLink(db, scope);
  if (!found) throw await linkNotFound(db, scope);
  const [current] = await catchUpExpiry(db, [found], now);
  return current ?? found;
}

/** What a link sells, by its offer's or plan's name (the dashboard's link page reads it beside the link). */
export function soldItemOfLink(
  db: Db,
  scope: LinkScope,
): Promise<{ name: string; code: string } | undefined> {
  return findSoldItem(db, scope);
}

export async function listPaymentLinks(
  db: Db,
  principal: LinkOwner,
  query: ListLinksQuery,
  now = new Date(),
): Promise<Page<LinkWithOrder>> {
  const scope = { companyId: principal.companyId, livemode: principal.livemode };
  const page = await cursorPage(
    {
      value: query.starting_after,
      isOwn: (linkId) => linkExists(db, { ...scope, linkId }),
      names: 'id of a payment link of this company and mode',
      resolvedByQuery: true,
    },
    query.limit,
    () =>
      listLinks(db, {
        ...scope,
        ...(query.status !== undefined ? { status: query.status } : {}),
        ...(query.external_reference !== undefined ? { externalReference: query.external_reference } : {}),
        ...(query.starting_after !== undefined ? { startingAfter: query.starting_after } : {}),
        limit: query.limit,
        now,
      }),
  );
  return { items: await catchUpExpiry(db, page.items, now), hasMore: page.hasMore };
}

type CancelOutcome =
  | { kind: 'done'; result: LinkWithOrder }
  | { kind: 'refused'; status: LinkRow['status'] }
  | { kind: 'missing' };

/**
 * Cancel: active → canceled; canceled stays as it is (200); paid and
 * expired are 409. A link found past expires_at is expired first, and that expiry is committed
 * even though the cancel is refused.
 */
export async function cancelPaymentLink(db: Db, scope: LinkScope): Promise<LinkWithOrder> {
  checkLinkIdShape(scope.linkId);
  const outcome = await db.transaction(async (tx): Promise<CancelOutcome> => {
    const canceled = await cancelLink(tx, scope);
    if (canceled) {
      const order =
        canceled.latestOrderId === null ? null : ((await findOrder(tx, canceled.latestOrderId)) ?? null);
      return { kind: 'done', result: { link: canceled, order } };
    }
    const current = await findLink(tx, scope);
    if (!current) return { kind: 'missing' };
    // Read the clock after the refused UPDATE, whose own test of expires_at used the database clock.
    const now = new Date();
    if (isOverdue(current.link, now)) {
      const expired = await expireLink(tx, current.link.id, now);
      if (expired) await recordLinkExpired(tx, expired);
      return { kind: 'refused', status: expired?.status ?? 'expired' };
    }
    if (current.link.status === 'canceled') return { kind: 'done', result: current };
    return { kind: 'refused', status: current.link.status };
  });
  if (outcome.kind === 'done') return outcome.result;
  if (outcome.kind === 'missing') throw await linkNotFound(db, scope);
  if (outcome.status === 'paid') {
    throw new ConflictError('A paid link cannot be canceled; refund the order in the panel instead');
  }
  if (outcome.status === 'expired') throw new ConflictError('An expired link cannot be canceled');
  throw new ConflictError(`The link changed while it was being canceled (now ${outcome.status}); try again`);
}
