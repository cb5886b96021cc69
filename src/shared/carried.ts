import { AsyncLocalStorage } from 'node:async_hooks';

/** The request a chain of asynchronous work serves: its id goes on every log line. */
export const carried = new AsyncLocalStorage<{ requestId: string }>();
