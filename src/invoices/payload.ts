/**
 * The invoice part of the panel's order and of the invoice events (docs/invoices.md), and the schemas
 * they are checked against. An invoice event's `data` is its order's event `data` plus `invoice`.
 */
import { nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { orderEventSchemas } from '../orders/payload.js';
import type { OrderInvoiceWire } from '../orders/mappers.js';
import { INVOICE_STATUSES, type InvoiceRow } from './repository.js';

export function toOrderInvoiceWire(row: InvoiceRow): OrderInvoiceWire {
  return {
    status: row.status,
    number: row.number,
    pdf_url: row.pdfUrl,
    xml_url: row.xmlUrl,
    message: row.message,
  };
}

const orderInvoice: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'number', 'pdf_url', 'xml_url', 'message'],
  description: "The order's service invoice (NFS-e); see docs/invoices.md",
  properties: {
    status: {
      type: 'string',
      enum: [...INVOICE_STATUSES],
      description:
        '`pending` (waiting for its time, or being authorised), `needs_data` (the buyer data the municipality ' +
        'asks for is missing: `message` names the field), `issued`, `failed` (refused: `message` is the ' +
        "provider's answer; a retry after a settings fix issues it), `canceled` (after a refund or chargeback)",
    },
    number: nullable({ type: 'string', description: 'The NFS-e number, once issued' }),
    pdf_url: nullable({
      type: 'string',
      description: 'Where the invoice (DANFSe) can be read or downloaded',
    }),
    xml_url: nullable({ type: 'string', description: "The invoice's XML" }),
    message: nullable({
      type: 'string',
      description: "Why it is waiting or failed, in the provider's words",
    }),
  },
};

const orderData = orderEventSchemas.OrderEventData ?? {};
const orderDataProperties = (orderData.properties ?? {}) as Record<string, JsonSchema>;
const orderDataRequired = (orderData.required ?? []) as string[];

export const invoiceSchemas: Record<string, JsonSchema> = {
  OrderInvoice: orderInvoice,
  InvoiceSettingsCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['ok', 'message'],
    properties: {
      ok: { type: 'boolean', description: 'Whether the provider says these settings can issue' },
      message: { type: 'string', description: "The provider's answer, in words for the seller" },
    },
  },
  InvoiceEventData: {
    ...orderData,
    required: [...orderDataRequired, 'invoice'],
    properties: { ...orderDataProperties, invoice: ref('OrderInvoice') },
  },
};
