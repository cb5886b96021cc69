import type { Response } from 'express';

/** Who is calling the payments API: one company, one mode, one key. */
export interface PaymentsPrincipal {
  companyId: number;
  keyId: number;
  livemode: boolean;
}

/** Who is calling the panel API: a user's panel token or a read-only key. */
export interface PanelPrincipal {
  companyId: number;
  via: 'panel_token' | 'read_only_key';
  /** Owners manage keys; members and read-only keys cannot. */
  role: 'owner' | 'member' | 'read_only';
  userId: number | null;
  keyId: number | null;
}

/** The payments caller of a request that passed `paymentsAuth`. */
export function paymentsPrincipal(res: Response): PaymentsPrincipal {
  const principal = res.locals.payments;
  if (!principal) throw new Error('paymentsAuth must run before this handler');
  return principal;
}

/** The panel caller of a request that passed `panelAuth`. */
export function panelPrincipal(res: Response): PanelPrincipal {
  const principal = res.locals.panel;
  if (!principal) throw new Error('panelAuth must run before this handler');
  return principal;
}
