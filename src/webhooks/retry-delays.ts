/**
 * Delay before attempt `attempt + 1`, in ms, or null when `attempt` was the last one. The schedule
 * gets ±jitter so a receiver coming back is not hit by every retry at once; a Retry-After is
 * honoured (never retry earlier than asked) up to twice the scheduled delay.
 */
export function nextDelayMs(
  schedule: number[],
  jitter: number,
  attempt: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const jittered = base * (1 + jitter * (2 * random() - 1));
  const wanted =
    retryAfterSeconds === null ? jittered : Math.max(jittered, Math.min(retryAfterSeconds, 2 * base));
  return Math.round(wanted * 1000);
}
