/**
 * What a PSP says about a charge, applied to its order (docs/mercadopago.md, "Notifications and
 * reconciliation"). A payment is only ever believed as read from the PSP with the token of the
 * account the charge was made in, and only for the charge it names (its external reference is the
 * order code, its amount the order's). Each lifecycle step runs through the one function of that
 * step, so a repeat changes nothing twice.
 */
import { gatewayOfAccount, gatewayOfCharge } from '../gateways/index.js';
import {
  GatewayUnavailableError,
  NotFoundAtGatewayError,
  type GatewayNotice,
  type PaymentGateway,
  type PspPayment,
} from '../gateways/port.js';
import { accountsAt } from '../gateways/accounts/repository.js';
import type { AppContext } from '../shared/context.js';
import {
  dropCharge,
  findCharge,
  findChargeByReference,
  overdueReconciliations,
  setReconcile,
  setReference,
  type ChargeRow,
} from './charge-repository.js';
import { recordCharge, requestedAmount, scheduleReconciliation } from './charges.js';
import { abandonDeadline } from './deadlines.js';
import { findOrderByCode, setOrderFees, type OrderRow } from './repository.js';
import { chargeBack, confirmPayment, failPayment, refundOrder } from './service.js';

/** What applying a PSP payment did, for logs and job results. */
export type Settled = 'ignored' | 'unchanged' | 'paid' | 'failed' | 'refunded' | 'charged_back' | 'dropped';

const amountMatches = (charge: ChargeRow, order: OrderRow | undefined, psp: PspPayment): boolean => {
  const expected = order?.amount ?? requestedAmount(charge);
  return expected !== undefined && Number(expected).toFixed(2) === psp.amount;
};

/** Makes sure the order has been paid (a refund or chargeback may be the first word of its payment). */
async function ensurePaid(ctx: AppContext, order: OrderRow, psp: PspPayment): Promise<OrderRow> {
  if (order.status !== 'pending' && order.status !== 'abandoned') return order;
  return (
    await confirmPayment(ctx, {
      orderCode: order.code,
      paymentMethod: psp.method ?? order.paymentMethod ?? 'credit_card',
      paidAt: psp.paidAt ?? new Date(),
    })
  ).order;
}

/**
 * Applies a payment read from the PSP to its charge's order: approved → paid; rejected or cancelled →
 * failed (a pending order only); refunded → refunded; charged back → charged back (each after paid,
 * when the approval was never heard); anything else → nothing yet. A payment for another order or
 * amount is ignored (and logged): the notification that led here is not to be believed.
 */
export async function settlePayment(ctx: AppContext, charge: ChargeRow, psp: PspPayment): Promise<Settled> {
  const log = { orderCode: charge.orderCode, reference: psp.reference, pspStatus: psp.status };
  let order = await findOrderByCode(ctx.db, charge.orderCode);
  if (psp.orderCode !== charge.orderCode || !amountMatches(charge, order, psp)) {
    ctx.logger.warn(log, 'a PSP payment does not match the charge it was found for; ignored');
    return 'ignored';
  }
  if (charge.reference === null) await setReference(ctx.db, charge.orderCode, psp.reference);
  else if (charge.reference !== psp.reference) {
    ctx.logger.warn(log, 'a second PSP payment names this order; ignored');
    return 'ignored';
  }
  if (!order) {
    // The pay step never heard back. A payment nobody can pay any more (its instructions were never
    // shown) or one that failed is let go; money that moved becomes the order it was for.
    if (psp.status === 'pending') return 'unchanged';
    if (psp.status === 'failed') {
      await dropCharge(ctx.db, charge.orderCode);
      return 'dropped';
    }
    order = (
      await recordCharge(ctx, charge.orderCode, {
        status: 'pending',
        reference: psp.reference,
        pix: null,
        boleto: null,
      })
    ).order;
  }
  // MP lists the fees once the payment is approved (its own, and the platform's it split off, which an
  // order made from a read, its pay step never answered, learns only here): recorded whatever comes next.
  const differs = (stored: string | null, read: string | null | undefined): boolean =>
    read != null && Number(stored ?? NaN) !== Number(read);
  if (differs(order.gatewayFee, psp.gatewayFee) || differs(order.platformFee, psp.platformFee))
    await setOrderFees(ctx.db, order.code, {
      gatewayFee: psp.gatewayFee ?? order.gatewayFee ?? '0.00',
      platformFee: psp.platformFee ?? order.platformFee ?? '0.00',
    });
  switch (psp.status) {
    case 'pending':
      return 'unchanged';
    case 'paid': {
      const { changed } = await confirmPayment(ctx, {
        orderCode: order.code,
        paymentMethod: psp.method ?? order.paymentMethod ?? 'credit_card',
        paidAt: psp.paidAt ?? new Date(),
      }).catch((err: unknown) => {
        // A paid order that was since refunded or charged back: nothing to confirm.
        if (order && order.status !== 'pending' && order.status !== 'abandoned') return { changed: false };
        throw err;
      });
      return changed ? 'paid' : 'unchanged';
    }
    case 'failed': {
      if (order.status !== 'pending') return 'unchanged';
      const { changed } = await failPayment(ctx, { code: order.code });
      return changed ? 'failed' : 'unchanged';
    }
    case 'refunded': {
      const paid = await ensurePaid(ctx, order, psp);
      if (paid.status !== 'paid' && paid.status !== 'refunded') return 'unchanged';
      const { changed } = await refundOrder(ctx, { code: order.code });
      return changed ? 'refunded' : 'unchanged';
    }
    case 'charged_back': {
      const paid = await ensurePaid(ctx, order, psp);
      if (paid.status !== 'paid' && paid.status !== 'charged_back') return 'unchanged';
      const { changed } = await chargeBack(ctx, { code: order.code });
      return changed ? 'charged_back' : 'unchanged';
    }
  }
}

/** Whether the PSP says the payment is not this account's (read with another company's token). */
const notFoundThere = (err: unknown): boolean => err instanceof NotFoundAtGatewayError;

/** A payment notification: the charge it names, read with the account the charge was made in. */
async function settlePaymentNotice(ctx: AppContext, notice: GatewayNotice): Promise<Settled> {
  const known = await findChargeByReference(ctx.db, notice.provider, notice.resourceId);
  if (known) {
    const gateway = await gatewayOfCharge(ctx, known);
    return settlePayment(ctx, known, await readWith(gateway, notice.resourceId));
  }
  // A payment whose answer the pay step never got: the account the body names reads it, and its
  // external reference must be a charge started in that very account.
  if (notice.accountId === null) return 'ignored';
  for (const accountRowId of await accountsAt(ctx.db, notice.provider, notice.accountId)) {
    const gateway = await gatewayOfAccount(ctx, accountRowId);
    let psp: PspPayment;
    try {
      psp = await readWith(gateway, notice.resourceId);
    } catch (err) {
      if (notFoundThere(err)) continue;
      throw err;
    }
    const charge = psp.orderCode === null ? undefined : await findCharge(ctx.db, psp.orderCode);
    if (charge && charge.accountId === accountRowId) return settlePayment(ctx, charge, psp);
  }
  return 'ignored';
}

function readWith(gateway: PaymentGateway, reference: string): Promise<PspPayment> {
  if (!gateway.readPayment) throw new GatewayUnavailableError('this gateway reads no payments');
  return gateway.readPayment(reference);
}

/** A chargeback notification: each of its payments' orders charged back, in the account that made them. */
async function settleChargebackNotice(ctx: AppContext, notice: GatewayNotice): Promise<Settled> {
  if (notice.accountId === null) return 'ignored';
  let result: Settled = 'ignored';
  for (const accountRowId of await accountsAt(ctx.db, notice.provider, notice.accountId)) {
    const gateway = await gatewayOfAccount(ctx, accountRowId);
    let references: string[];
    try {
      references = (await gateway.readDisputedPayments?.(notice.resourceId)) ?? [];
    } catch (err) {
      if (notFoundThere(err)) continue;
      throw err;
    }
    for (const reference of references) {
      const charge = await findChargeByReference(ctx.db, notice.provider, reference);
      if (!charge || charge.accountId !== accountRowId) continue;
      const order = await findOrderByCode(ctx.db, charge.orderCode);
      if (!order) continue;
      const psp: PspPayment = {
        reference,
        orderCode: order.code,
        status: 'charged_back',
        amount: Number(order.amount).toFixed(2),
        method: order.paymentMethod,
        paidAt: order.paidAt,
      };
      result = await settlePayment(ctx, charge, psp);
    }
  }
  return result;
}

/** The job of a verified notification (queue `gateway-notices`): MP down → the job retries. */
export function settleNotice(ctx: AppContext, notice: GatewayNotice): Promise<Settled> {
  return notice.topic === 'payment' ? settlePaymentNotice(ctx, notice) : settleChargebackNotice(ctx, notice);
}

/** When a charge without an order is given up: as long as an unpaid order would have been kept. */
const startingDeadline = (ctx: AppContext, charge: ChargeRow): Date =>
  new Date(charge.createdAt.getTime() + ctx.config.orderAbandonAfterSeconds * 1000);

/** Reads after the deadline are not spread any further than this past it. */
const LAST_READ_AFTER_DEADLINE_MS = 60_000;

/**
 * One reconciliation read (queue `gateway-reconciliation`, and the sweep): the charge's payment read
 * from its PSP and applied. An order still pending (or abandoned) is read again later, each wait
 * twice the one before (MERCADOPAGO_RECONCILE_AFTER_SECONDS first), until a read after its deadline;
 * then it is left to notifications.
 */
export async function reconcileCharge(ctx: AppContext, orderCode: string, now = new Date()): Promise<string> {
  const charge = await findCharge(ctx.db, orderCode);
  if (!charge || charge.reconcileAt === null) return 'nothing to read';
  const gateway = await gatewayOfCharge(ctx, charge);
  if (!gateway.readPayment) {
    await setReconcile(ctx.db, orderCode, null);
    return 'gateway reads no payments';
  }
  const psp =
    charge.reference === null
      ? await gateway.findPayment?.(orderCode)
      : await gateway.readPayment(charge.reference);
  const settled = psp ? await settlePayment(ctx, charge, psp) : 'unchanged';
  const order = await findOrderByCode(ctx.db, orderCode);
  const open = order ? order.status === 'pending' || order.status === 'abandoned' : settled !== 'dropped';
  const deadline = order
    ? abandonDeadline(order, ctx.config.orderAbandonAfterSeconds)
    : startingDeadline(ctx, charge);
  if (!open) {
    await setReconcile(ctx.db, orderCode, null, charge.reconcileCount + 1);
    return `concluded (${settled})`;
  }
  if (now.getTime() > deadline.getTime()) {
    if (!order) await dropCharge(ctx.db, orderCode);
    await setReconcile(ctx.db, orderCode, null, charge.reconcileCount + 1);
    return `past its deadline (${settled})`;
  }
  const mp = ctx.config.mercadoPago;
  const base = (mp?.reconcileAfterSeconds ?? 900) * 1000;
  const wait = base * 2 ** Math.min(charge.reconcileCount, 20);
  const next = new Date(Math.min(now.getTime() + wait, deadline.getTime() + LAST_READ_AFTER_DEADLINE_MS));
  await setReconcile(ctx.db, orderCode, next, charge.reconcileCount + 1);
  scheduleReconciliation(ctx, orderCode, next, charge.reconcileCount + 2);
  return `read again at ${next.toISOString()} (${settled})`;
}

/** The safety net of reconciliation jobs (Redis holds jobs in flight only): overdue reads run here. */
export async function sweepReconciliations(ctx: AppContext, graceMs = 60_000, batch = 50): Promise<number> {
  let ran = 0;
  for (const code of await overdueReconciliations(ctx.db, graceMs, batch)) {
    try {
      await reconcileCharge(ctx, code);
      ran += 1;
    } catch (err) {
      ctx.logger.warn({ err, orderCode: code }, 'a reconciliation read failed; the next sweep tries again');
    }
  }
  return ran;
}
