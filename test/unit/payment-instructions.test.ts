import { codBarras2LinhaDigitavel } from '@mrmgomes/boleto-utils';
import { getBoletoInfo, isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { expect } from 'chai';
import fc from 'fast-check';
import { exampleEventData } from '../../src/events/examples.js';
import {
  boletoNumbers,
  BOLETO_MAX_CENTS,
  dueDateFactor,
  formatDigitableLine,
  mod10,
  mod11,
} from '../../src/gateways/boleto.js';
import { boletoFreeField, devGateway, devPixKey, pixTxid } from '../../src/gateways/dev.js';
import { crc16, emvText, staticPixBrCode } from '../../src/gateways/pix.js';
import { ChargeRefusedError, type ChargeRequest } from '../../src/gateways/port.js';
import { abandonAtOf } from '../../src/orders/deadlines.js';
import { installmentPlan } from '../../src/checkout/pricing.js';
import { successRedirectUrl } from '../../src/checkout/service.js';
import { addDays, brazilDate, daysBetween, startOfBrazilDay } from '../../src/shared/brazil-time.js';
import { readBoletoLine, readStaticPix } from '../checkout/helpers.js';

const FIRST_FACTOR_DAY = '2000-07-03'; // factor 1000 of the first cycle
const LAST_DAY = '2049-10-13'; // the last day of the second cycle (factor 9999)

/** A calendar date between the first factor 1000 and the end of the cycle that began in 2025. */
const dueDates = fc
  .integer({ min: 0, max: daysBetween(FIRST_FACTOR_DAY, LAST_DAY) })
  .map((n) => addDays(FIRST_FACTOR_DAY, n));

describe('Pix BR Codes of the dev gateway', () => {
  it('computes CRC-16/CCITT-FALSE as the BR Code manual does (its own example payload)', () => {
    const example =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR' +
      '5913Fulano de Tal6008BRASILIA62070503***6304';
    expect(crc16(example)).to.equal('1D3D');
    // The standard check value of CRC-16/CCITT-FALSE.
    expect(crc16('123456789')).to.equal('29B1');
  });

  it('makes static BR Codes that pix-utils and brazilian-utils read back field by field', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9_999_999_999 }),
        fc.uuid(),
        fc.string({ minLength: 0, maxLength: 60 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (cents, orderCode, name, companyId) => {
          const amount = (cents / 100).toFixed(2);
          const code = staticPixBrCode({
            key: devPixKey(companyId),
            merchantName: name,
            merchantCity: 'São Paulo',
            amount,
            txid: pixTxid(orderCode),
          });
          const read = readStaticPix(code);
          expect(read.transactionAmount).to.equal(Number(amount));
          expect(read.pixKey).to.equal(devPixKey(companyId));
          expect(read.txid).to.equal(orderCode.replace(/-/g, '').slice(0, 25));
          expect(read.merchantCity).to.equal('Sao Paulo');
          expect(read.merchantName).to.equal(emvText(name, 25, 'RECEBEDOR'));
          expect(isValidPixPayload(code), code).to.equal(true);
          // A changed character breaks the CRC.
          const tampered = code.replace('br.gov.bcb.pix', 'br.gov.bcb.pux');
          expect(isValidPixPayload(tampered)).to.equal(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes names and cities as plain ASCII within their lengths', () => {
    expect(emvText('Ação & Companhia Ltda. — São João del-Rei', 25, 'X')).to.equal(
      'Acao & Companhia Ltda. Sa',
    );
    expect(emvText('   ', 15, 'BRASIL')).to.equal('BRASIL');
    expect(emvText('🙂🙂', 15, 'BRASIL')).to.equal('BRASIL');
  });

  it('refuses an amount of zero or a txid a bank would refuse', () => {
    const pix = { key: devPixKey(1), merchantName: 'A', merchantCity: 'B', amount: '0.00', txid: 'abc' };
    expect(() => staticPixBrCode(pix)).to.throw(/positive/);
    expect(() => staticPixBrCode({ ...pix, amount: '1.00', txid: 'has-dash' })).to.throw(/txid/);
    expect(() => staticPixBrCode({ ...pix, amount: '1.00', txid: 'x'.repeat(26) })).to.throw(/txid/);
  });

  it('the example order event of a test send carries a valid Pix code', () => {
    const data = exampleEventData('order.created') as { order: { pix: { copy_paste: string } } };
    expect(readStaticPix(data.order.pix.copy_paste).transactionAmount).to.equal(10);
  });
});

describe('boletos of the dev gateway', () => {
  it('counts the due-date factor from 1997-10-07 and starts again at 1000 on 2025-02-22', () => {
    expect(dueDateFactor('2000-07-03')).to.equal(1000);
    expect(dueDateFactor('2025-02-21')).to.equal(9999);
    expect(dueDateFactor('2025-02-22')).to.equal(1000);
    expect(dueDateFactor('2025-02-23')).to.equal(1001);
    expect(dueDateFactor(LAST_DAY)).to.equal(9999);
    expect(dueDateFactor(addDays(LAST_DAY, 1))).to.equal(1000);
    expect(() => dueDateFactor('2000-07-02')).to.throw(/factor/);
  });

  it('computes the check digits as FEBRABAN does (mod 10 per field, mod 11 overall, never 0)', () => {
    expect(mod10('001900000')).to.equal(9);
    expect(mod10('0000000000')).to.equal(0);
    // Remainders 0 and 1 (11 - r would be 11 or 10) give 1 instead: a general check digit is never 0.
    const withRemainder = (r: number): string => {
      for (let n = 0; ; n++) {
        const digits = String(n).padStart(43, '0');
        let sum = 0;
        for (let i = 0; i < 43; i++) sum += Number(digits[42 - i]) * (2 + (i % 8));
        if (sum % 11 === r) return digits;
      }
    };
    expect(mod11(withRemainder(0))).to.equal(1);
    expect(mod11(withRemainder(1))).to.equal(1);
    expect(mod11(withRemainder(2))).to.equal(9);
    expect(mod11(withRemainder(10))).to.equal(1);
  });

  it('makes barcodes and linhas digitáveis that two independent validators accept, with the amount and due date', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: BOLETO_MAX_CENTS }),
        dueDates,
        fc.uuid(),
        (cents, dueDate, orderCode) => {
          const { barcode, digitableLine } = boletoNumbers('999', cents, dueDate, boletoFreeField(orderCode));
          expect(barcode).to.match(/^\d{44}$/);
          expect(digitableLine).to.match(/^\d{47}$/);
          // brazilian-utils checks every check digit, the general one by the central bank's rule.
          expect(isValidBoleto(digitableLine), digitableLine).to.equal(true);
          const info = getBoletoInfo(digitableLine, { referenceDate: new Date(`${dueDate}T12:00:00Z`) });
          expect(info).to.deep.include({ amount: cents, bankCode: '999' });
          expect(info?.expirationDate?.toISOString().slice(0, 10)).to.equal(dueDate);
          // @mrmgomes/boleto-utils checks the three field digits of the line and converts it back.
          const read = readBoletoLine(digitableLine);
          expect(read.sucesso, read.mensagem).to.equal(true);
          expect(read.tipoBoleto).to.equal('BANCO');
          expect(read.codigoBarras).to.equal(barcode);
          // Its amount reader drops the leading digit of amounts of ten digits whose second is a zero
          // (R$ 10.000.000,00 and up); below that it reads every amount.
          if (cents < 1_000_000_000) expect(read.valor).to.equal(cents / 100);
          const due = dueDate >= '2025-02-22' ? read.vencimentoComNovoFator2025 : read.vencimento;
          expect(due.toISOString().slice(0, 10)).to.equal(dueDate);
          expect(codBarras2LinhaDigitavel(barcode, false)).to.equal(digitableLine);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('prints the linha digitável in its five groups', () => {
    const { digitableLine } = boletoNumbers('999', 19750, '2026-03-15', '0'.repeat(24) + '1');
    expect(formatDigitableLine(digitableLine)).to.match(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
    expect(formatDigitableLine(digitableLine).replace(/\D/g, '')).to.equal(digitableLine);
  });

  it('refuses amounts a barcode cannot carry', () => {
    expect(() => boletoNumbers('999', BOLETO_MAX_CENTS + 1, '2026-03-15', '0'.repeat(25))).to.throw();
    expect(() => boletoNumbers('99', 100, '2026-03-15', '0'.repeat(25))).to.throw(/bank/);
  });
});

describe('the dev gateway’s charges', () => {
  const request: ChargeRequest = {
    orderCode: '0f8e6a52-3b7c-4d1e-9a2b-5c6d7e8f9a0b',
    companyId: 7,
    merchantName: 'Loja da Ana',
    description: 'Curso de pão',
    amount: '197.50',
    method: 'pix',
    installments: null,
    // 23:30 in Brasília on 2026-03-14 is already 2026-03-15 in UTC.
    createdAt: new Date('2026-03-15T02:30:00Z'),
    pixExpiresInSeconds: 900,
    boletoDueDays: 3,
    boletoPageUrl: 'https://pay.example.com/orders/0f8e6a52-3b7c-4d1e-9a2b-5c6d7e8f9a0b/boleto',
    payer: { name: 'Ana', email: 'ana@example.com', phone: null, document: null, address: null },
    card: null,
  };
  const gateway = devGateway(undefined);

  it('approves a card at once, with no instructions', async () => {
    expect(await gateway.createCharge({ ...request, method: 'credit_card', installments: 3 })).to.deep.equal({
      status: 'paid',
      reference: null,
      pix: null,
      boleto: null,
    });
  });

  it('gives a Pix pending until its expiry, and a boleto due some days after the order in Brasília', async () => {
    const pix = await gateway.createCharge(request);
    expect(pix.status).to.equal('pending');
    expect(pix.pix?.expiresAt.toISOString()).to.equal('2026-03-15T02:45:00.000Z');
    expect(readStaticPix(pix.pix?.copyPaste ?? '').transactionAmount).to.equal(197.5);
    expect(abandonAtOf(pix)).to.deep.equal(pix.pix?.expiresAt);

    const boleto = await gateway.createCharge({ ...request, method: 'boleto' });
    expect(brazilDate(request.createdAt)).to.equal('2026-03-14');
    expect(boleto.boleto).to.include({ dueDate: '2026-03-17', url: request.boletoPageUrl });
    // Abandoned at the end of the third day after the due date: midnight of 2026-03-21 in Brasília.
    expect(abandonAtOf(boleto)?.toISOString()).to.equal('2026-03-21T03:00:00.000Z');
    expect(startOfBrazilDay('2026-03-21').toISOString()).to.equal('2026-03-21T03:00:00.000Z');
  });

  it('refuses a Pix or boleto of nothing, and a boleto beyond what its barcode carries', async () => {
    for (const method of ['pix', 'boleto'] as const) {
      const refused = await gateway
        .createCharge({ ...request, method, amount: '0.00' })
        .catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(ChargeRefusedError);
    }
    const huge = await gateway
      .createCharge({ ...request, method: 'boleto', amount: '100000000.00' })
      .catch((e: unknown) => e);
    expect(huge).to.be.instanceOf(ChargeRefusedError);
  });

  it('takes no callbacks without a secret', () => {
    expect(gateway.readCallback).to.equal(undefined);
    expect(devGateway('a-secret-of-sixteen+').readCallback).to.be.a('function');
  });
});

describe('checkout arithmetic', () => {
  it('splits a total into interest-free instalments, the odd cents on the first', () => {
    expect(installmentPlan('297.00', 3)).to.deep.equal({ first: '99.00', each: '99.00' });
    expect(installmentPlan('100.00', 3)).to.deep.equal({ first: '33.34', each: '33.33' });
    expect(installmentPlan('0.05', 12)).to.deep.equal({ first: '0.05', each: '0.00' });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 12 }), (cents, n) => {
        const plan = installmentPlan((cents / 100).toFixed(2), n);
        const total = Math.round(Number(plan.first) * 100) + (n - 1) * Math.round(Number(plan.each) * 100);
        expect(total).to.equal(cents);
      }),
    );
  });

  it('adds link_id and order_code to a success_url after its own query, before its fragment', () => {
    const add = (url: string) => successRedirectUrl(url, 'plink_abc', 'c0de');
    expect(add('https://shop.example/thanks')).to.equal(
      'https://shop.example/thanks?link_id=plink_abc&order_code=c0de',
    );
    expect(add('https://shop.example/thanks?utm_source=mail&x=a%20b')).to.equal(
      'https://shop.example/thanks?utm_source=mail&x=a%20b&link_id=plink_abc&order_code=c0de',
    );
    expect(add('https://shop.example/t?#done')).to.equal(
      'https://shop.example/t?link_id=plink_abc&order_code=c0de#done',
    );
    expect(add('https://shop.example/café?q=ç')).to.equal(
      'https://shop.example/caf%C3%A9?q=%C3%A7&link_id=plink_abc&order_code=c0de',
    );
  });
});
