import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { LastUsedTracker } from '../../src/auth/last-used.js';

const MINUTE_MS = 60_000;

/** A tracker whose writes are recorded (or fail, or never finish) and whose logs are kept. */
function tracker(write: (id: number) => Promise<void> = async () => undefined) {
  const writes: number[] = [];
  const logs: Array<{ level: number; msg: string; id?: number }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(JSON.parse(chunk.toString()) as { level: number; msg: string; id?: number });
      done();
    },
  });
  const t = new LastUsedTracker(
    (id) => {
      writes.push(id);
      return write(id);
    },
    pino({}, sink),
  );
  return { t, writes, logs };
}

describe('LastUsedTracker: last use recorded at most once a minute per credential', () => {
  const t0 = 1_700_000_000_000;

  it('writes on first use, not again within the minute, and again once the minute is over', () => {
    const { t, writes } = tracker();
    t.touch(7, t0);
    expect(writes).to.deep.equal([7]);
    t.touch(7, t0 + 1);
    t.touch(7, t0 + MINUTE_MS - 1);
    expect(writes).to.deep.equal([7]);
    t.touch(7, t0 + MINUTE_MS);
    expect(writes).to.deep.equal([7, 7]);
    // The minute counts from the last write, not from the first use.
    t.touch(7, t0 + 2 * MINUTE_MS - 1);
    expect(writes).to.deep.equal([7, 7]);
    t.touch(7, t0 + 2 * MINUTE_MS);
    expect(writes).to.deep.equal([7, 7, 7]);
  });

  it('throttles each credential on its own', () => {
    const { t, writes } = tracker();
    t.touch(1, t0);
    t.touch(2, t0 + 10);
    t.touch(1, t0 + 20);
    t.touch(2, t0 + 30);
    t.touch(3, t0 + 40);
    expect(writes).to.deep.equal([1, 2, 3]);
  });

  it('does not wait for the write (the request goes on), and logs a failed one without throwing', async () => {
    let release: () => void = () => undefined;
    const pending = tracker(() => new Promise<void>((resolve) => (release = resolve)));
    pending.t.touch(1, t0);
    expect(pending.writes).to.deep.equal([1]);
    release();

    const failing = tracker(async () => {
      throw new Error('database down');
    });
    expect(() => failing.t.touch(5, t0)).not.to.throw();
    await new Promise((resolve) => setImmediate(resolve));
    expect(failing.logs).to.have.length(1);
    expect(failing.logs[0]).to.include({ level: 40, msg: 'could not record last use', id: 5 });
  });

  it('forgets credentials used over a minute ago once it tracks 10,000, and keeps throttling recent ones', () => {
    const { t, writes } = tracker();
    for (let id = 1; id <= 10_000; id += 1) t.touch(id, t0);
    t.touch(20_001, t0 + MINUTE_MS - 1_000);
    // The 10,002nd credential makes it prune: every one of the first 10,000 is a minute old.
    t.touch(20_002, t0 + MINUTE_MS);
    writes.length = 0;
    t.touch(20_001, t0 + MINUTE_MS + 500);
    t.touch(20_002, t0 + MINUTE_MS + 500);
    expect(writes, 'recent credentials still throttled after the prune').to.deep.equal([]);
    t.touch(1, t0 + MINUTE_MS + 500);
    expect(writes).to.deep.equal([1]);
  });
});
