/** numeric(12,2) values arrive from PostgreSQL as exact strings; the wire shows two decimals ("97.00"). */
export const formatMoney = (value: string): string => Number.parseFloat(value).toFixed(2);
