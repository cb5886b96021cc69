import { formatMoney } from './mappers.js';
import type { CouponRow, ProductRow } from './repository.js';

export interface ProductWire {
  object: 'product';
  id: number;
  code: string;
  name: string;
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
}

export interface CouponWire {
  object: 'coupon';
  code: string;
  percent_off: string | null;
  amount_off: string | null;
  status: 'active' | 'inactive';
  created_at: string;
}

const statusOf = (active: boolean): 'active' | 'inactive' => (active ? 'active' : 'inactive');

export const toProductWire = (row: ProductRow): ProductWire => ({
  object: 'product',
  id: row.id,
  code: row.code,
  name: row.name,
  status: statusOf(row.active),
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

export const toCouponWire = (row: CouponRow): CouponWire => ({
  object: 'coupon',
  code: row.code,
  percent_off: row.percentOff === null ? null : formatMoney(row.percentOff),
  amount_off: row.amountOff === null ? null : formatMoney(row.amountOff),
  status: statusOf(row.active),
  created_at: row.createdAt.toISOString(),
});
