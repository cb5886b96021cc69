import { expect } from 'chai';
import { brasiliaLocalInput } from '../../src/dashboard/deliveries/views.js';
import { brasiliaInstant, brasiliaTime } from '../../src/dashboard/params.js';
import { brazilIso, fromBrazilLocal } from '../../src/shared/brazil-time.js';

/**
 * Brasília's offsets come from the time-zone database (America/Sao_Paulo), not a constant: the
 * summer of 2018–19 still had daylight saving (UTC-02:00), which a hard-coded -03:00 gets wrong.
 */
describe('Brasília time from one helper', () => {
  it('writes an instant as Brasília’s wall clock with the offset of that moment', () => {
    expect(brazilIso(new Date('2026-12-07T15:00:00.000Z'))).to.equal('2026-12-07T12:00:00.000-03:00');
    expect(brazilIso(new Date('2018-12-01T14:00:00.000Z'))).to.equal('2018-12-01T12:00:00.000-02:00');
    expect(brazilIso(new Date('2026-01-01T02:59:59.999Z'))).to.equal('2025-12-31T23:59:59.999-03:00');
    expect(brasiliaLocalInput(new Date('2018-12-01T14:05:00.000Z'))).to.equal('2018-12-01T12:05');
  });

  it('reads a Brasília wall-clock time as its instant, as the dashboard’s date filters do', () => {
    expect(fromBrazilLocal('2026-12-07T12:00').toISOString()).to.equal('2026-12-07T15:00:00.000Z');
    expect(fromBrazilLocal('2018-12-01T12:00:30').toISOString()).to.equal('2018-12-01T14:00:30.000Z');
    expect(brasiliaInstant('2018-12-01T12:00')).to.equal('2018-12-01T14:00:00.000Z');
    expect(brasiliaInstant('2026-07-01T00:00')).to.equal('2026-07-01T03:00:00.000Z');
    expect(Number.isNaN(fromBrazilLocal('2026-13-01T00:00').getTime())).to.equal(true);
    expect(brasiliaTime().validate('2026-13-01T10:00').error).to.not.equal(undefined);
    expect(brasiliaTime().validate('2026-02-28T10:00').error).to.equal(undefined);
  });
});
