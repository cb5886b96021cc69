import { expect } from 'chai';
import fc from 'fast-check';
import { generateCnpj } from '@brazilian-utils/brazilian-utils';
import { normalizeDocument, normalizePhone } from '../../src/payment-links/customer.js';

describe('buyer contact normalisation (CPF, CNPJ, phone)', () => {
  const separators = fc.constantFrom('', ' ', '-', '.', '(', ')');
  const formatted = (digits: string) =>
    fc
      .array(separators, { minLength: digits.length, maxLength: digits.length })
      .map((seps) => [...digits].map((d, i) => d + (seps[i] ?? '')).join(''));

  it('turns any 10–15 digits with separators into + and the digits', () => {
    fc.assert(
      fc.property(
        fc
          .string({ unit: fc.constantFrom(...'0123456789'), minLength: 10, maxLength: 15 })
          .chain((digits) => formatted(digits).map((text) => ({ digits, text }))),
        fc.boolean(),
        ({ digits, text }, plus) => {
          expect(normalizePhone(`${plus ? '+' : ''}${text}`)).to.deep.equal({
            ok: true,
            value: `+${digits}`,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses phones with fewer than 10 or more than 15 digits', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 9 }),
          fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 16, maxLength: 30 }),
        ),
        (digits) => {
          expect(normalizePhone(digits).ok).to.equal(false);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('accepts exactly one check-digit pair for any 9-digit CPF base', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 9, maxLength: 9 }),
        (base) => {
          fc.pre(!/^(\d)\1*$/.test(base));
          let valid = 0;
          for (let check = 0; check < 100; check++)
            if (normalizeDocument(base + String(check).padStart(2, '0')).ok) valid++;
          expect(valid).to.equal(1);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('accepts exactly one check-digit pair for any 12-digit CNPJ base', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 12, maxLength: 12 }),
        (base) => {
          fc.pre(!/^(\d)\1*$/.test(base));
          let valid = 0;
          for (let check = 0; check < 100; check++)
            if (normalizeDocument(base + String(check).padStart(2, '0')).ok) valid++;
          expect(valid).to.equal(1);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('accepts exactly one check-digit pair for any 12-character alphanumeric CNPJ base', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
          minLength: 12,
          maxLength: 12,
        }),
        (base) => {
          fc.pre(/[A-Z]/.test(base));
          let valid = 0;
          for (let check = 0; check < 100; check++)
            if (normalizeDocument(base + String(check).padStart(2, '0')).ok) valid++;
          expect(valid).to.equal(1);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keeps any alphanumeric CNPJ, masked or in lower case, as its 14 upper-case characters', () => {
    for (let i = 0; i < 50; i++) {
      const cnpj = generateCnpj(2);
      const masked = `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`;
      expect(normalizeDocument(masked.toLowerCase())).to.deep.equal({ ok: true, value: cnpj });
    }
  });

  it('knows published examples: CPF 529.982.247-25 and CNPJ 11.222.333/0001-81', () => {
    expect(normalizeDocument('529.982.247-25')).to.deep.equal({ ok: true, value: '52998224725' });
    expect(normalizeDocument('11.222.333/0001-81')).to.deep.equal({ ok: true, value: '11222333000181' });
    expect(normalizeDocument('529.982.247-52').ok).to.equal(false);
    // The Receita Federal's example of the alphanumeric form.
    expect(normalizeDocument('12.ABC.345/01DE-35')).to.deep.equal({ ok: true, value: '12ABC34501DE35' });
    expect(normalizeDocument('12.ABC.345/01DE-53').ok).to.equal(false);
    expect(normalizeDocument('00.000.000/0000-00').ok).to.equal(false);
  });
});
