import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { expect } from 'chai';
import { Carried, carried } from '../../src/shared/carried.js';
import { CarriedContextManager } from '../../src/shared/tracing.js';

/** A context whose span records (a sampled one) and one whose span does not, made by a real SDK tracer. */
function contexts(): { sampled: Context; unsampled: Context } {
  const sampledTracer = new tracing.BasicTracerProvider().getTracer('test');
  const unsampledTracer = new tracing.BasicTracerProvider({
    sampler: new tracing.AlwaysOffSampler(),
  }).getTracer('test');
  return {
    sampled: trace.setSpan(ROOT_CONTEXT, sampledTracer.startSpan('sampled')),
    unsampled: trace.setSpan(ROOT_CONTEXT, unsampledTracer.startSpan('unsampled')),
  };
}

describe('CarriedContextManager: the trace context on the request-id storage', () => {
  const { sampled, unsampled } = contexts();

  it('carries a sampled context across awaits, beside the request id already carried', async () => {
    const manager = new CarriedContextManager(false);
    const seen = await carried.run(new Carried('req_1', undefined), () =>
      manager.with(sampled, async () => {
        await sleep(1);
        return { active: manager.active(), requestId: carried.getStore()?.requestId };
      }),
    );
    expect(seen.active).to.equal(sampled);
    expect(seen.requestId).to.equal('req_1');
  });

  it('runs work the sampler left out outside any context, unless it is already inside one', async () => {
    const manager = new CarriedContextManager(false);
    expect(await manager.with(unsampled, async () => manager.active())).to.equal(ROOT_CONTEXT);
    const nested = await manager.with(sampled, () => manager.with(unsampled, async () => manager.active()));
    expect(nested).to.equal(unsampled);
  });

  it('binds a function to its context', () => {
    const manager = new CarriedContextManager(false);
    const bound = manager.bind(sampled, (n: number) => ({ n, active: manager.active() }));
    expect(bound(2)).to.deep.equal({ n: 2, active: sampled });
    expect(manager.active()).to.equal(ROOT_CONTEXT);
  });

  it('in a worker, switches the storage off once no traced work runs (what Node 20 hooks every promise for)', async () => {
    const manager = new CarriedContextManager(true);
    let releaseFirst: () => void = () => undefined;
    const first = manager.with(sampled, () => new Promise<void>((resolve) => (releaseFirst = resolve)));
    let lateLook: Promise<Context> | undefined;
    const second = manager.with(sampled, async () => {
      // Work the traced job left behind: it runs after the job ended.
      lateLook = sleep(20).then(() => manager.active());
      await sleep(1);
      // While another traced job still runs, the storage stays on.
      return manager.active();
    });
    expect(await second).to.equal(sampled);
    releaseFirst();
    await first;
    // Both finished: the storage is off, so what runs later sees no context (and pays no hook).
    expect(await lateLook).to.equal(ROOT_CONTEXT);
    // The next traced job switches it on again.
    expect(await manager.with(sampled, async () => (await sleep(1), manager.active()))).to.equal(sampled);
  });
});
