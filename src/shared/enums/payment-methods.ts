/** How a buyer pays; `credit_card` is the checkout's default. */
export const PAYMENT_METHODS = ['credit_card', 'pix', 'boleto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
