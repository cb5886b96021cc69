/** What `eventually` throws when its check never gave a value: a caller that cleans up can tell it apart. */
export class TimedOut extends Error {
  override name = 'TimedOut';
}

/**
 * Polls `check` until it gives a value other than undefined or false, and resolves with that value
 * (a check may be a condition: its false means "not yet", as its undefined does); rejects
 * with `TimedOut` naming `what` after `timeoutMs`. For state only polling can see (rows in
 * PostgreSQL, a process list, a page's text); where the code under test has an event, a counter
 * or a log line, a test waits on that instead. `what` may be a function, read at the time-out, to
 * say what was seen instead.
 */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what: string | (() => string | Promise<string>) = 'condition',
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      const described = typeof what === 'string' ? what : await what();
      throw new TimedOut(`timed out after ${timeoutMs} ms waiting for ${described}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
