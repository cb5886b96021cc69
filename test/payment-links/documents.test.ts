import { expect } from 'chai';
import fc from 'fast-check';
import {
  isValidCnpj,
  isValidCpf,
  normalizeDocument,
  normalizePhone,
} from '../../src/payment-links/customer.js';

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
            if (isValidCpf(base + String(check).padStart(2, '0'))) valid++;
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
            if (isValidCnpj(base + String(check).padStart(2, '0'))) valid++;
          expect(valid).to.equal(1);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('knows published examples: CPF 529.982.247-25 and CNPJ 11.222.333/0001-81', () => {
    expect(normalizeDocument('529.982.247-25')).to.deep.equal({ ok: true, value: '52998224725' });
    expect(normalizeDocument('11.222.333/0001-81')).to.deep.equal({ ok: true, value: '11222333000181' });
    expect(normalizeDocument('529.982.247-52').ok).to.equal(false);
  });
});
