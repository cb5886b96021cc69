/**
 * A static Pix BR Code ("copia e cola"): the EMV merchant-presented payload of the Banco Central's
 * BR Code manual, with the Pix key, the amount and a transaction id, closed by its CRC16. Bank apps
 * read it from the QR code or from the pasted text.
 */

export interface StaticPix {
  /** The receiver's Pix key (an e-mail, phone, CPF/CNPJ or random EVP key). */
  key: string;
  /** Up to 25 characters; made ASCII here. */
  merchantName: string;
  /** Up to 15 characters; made ASCII here. */
  merchantCity: string;
  /** Reais with two decimals, greater than zero. */
  amount: string;
  /** Up to 25 letters and digits: what the receiver's statement shows for this payment. */
  txid: string;
}

/** One EMV field: id, two-digit length, value (the value is ASCII, so its length is its byte count). */
const field = (id: string, value: string): string => {
  if (value.length > 99) throw new Error(`BR Code field ${id} is longer than 99 characters`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
};

/**
 * CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR), as the
 * BR Code manual specifies for field 63, over the payload up to and including "6304". Four
 * upper-case hex digits.
 */
export function crc16(payload: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(payload, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Names and cities in a BR Code are plain ASCII (bank apps differ on anything else): accents are
 * dropped, other characters become spaces, and the result is cut to `max` characters.
 */
export function emvText(value: string, max: number, fallback: string): string {
  const plain = value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 .,&@/-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
  return plain === '' ? fallback : plain;
}

/**
 * The BR Code of a static Pix with an amount and a txid. No point-of-initiation field: it stays a
 * static code by the manual's terms (the txid ties a payment to its order).
 */
export function staticPixBrCode(pix: StaticPix): string {
  if (!/^[A-Za-z0-9]{1,25}$/.test(pix.txid)) throw new Error('a Pix txid is 1–25 letters and digits');
  if (!/^\d{1,10}\.\d{2}$/.test(pix.amount) || Number(pix.amount) <= 0)
    throw new Error(`a Pix amount is a positive number with two decimals, not ${pix.amount}`);
  const payload =
    field('00', '01') +
    field('26', field('00', 'br.gov.bcb.pix') + field('01', pix.key)) +
    field('52', '0000') +
    field('53', '986') +
    field('54', pix.amount) +
    field('58', 'BR') +
    field('59', emvText(pix.merchantName, 25, 'RECEBEDOR')) +
    field('60', emvText(pix.merchantCity, 15, 'BRASIL')) +
    field('62', field('05', pix.txid)) +
    '6304';
  return payload + crc16(payload);
}
