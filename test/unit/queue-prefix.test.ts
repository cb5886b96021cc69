import { expect } from 'chai';
import { QUEUE, queuePrefixFor } from '../../queues/index.js';

/** Redis Cluster hashes only what is inside the first {…} of a key: the slot a queue lands in. */
const hashTag = (key: string): string => /\{([^}]*)\}/.exec(key)?.[1] ?? key;

describe('queue key prefixes', () => {
  it('give every queue a hash tag of its own, from QUEUE_PREFIX with or without braces', () => {
    const tags = Object.values(QUEUE).map((queue) =>
      hashTag(`${queuePrefixFor('{plinks}', queue)}:${queue}:wait`),
    );
    expect(new Set(tags).size).to.equal(Object.values(QUEUE).length);
    expect(queuePrefixFor('{plinks}', 'outbox')).to.equal('{plinks:outbox}');
    expect(queuePrefixFor('plinks', 'outbox')).to.equal('{plinks:outbox}');
    // All of one queue's keys share its tag (BullMQ's scripts touch several keys of one queue at once).
    const prefix = queuePrefixFor('{plinks}', 'deliveries');
    expect(
      ['wait', 'delayed', 'dlv-1-2', 'events'].map((k) => hashTag(`${prefix}:deliveries:${k}`)),
    ).to.deep.equal(Array(4).fill('plinks:deliveries'));
  });
});
