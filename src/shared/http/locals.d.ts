import type { PanelPrincipal, PaymentsPrincipal } from './principal.js';

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      payments?: PaymentsPrincipal;
      panel?: PanelPrincipal;
    }
  }
}

export {};
