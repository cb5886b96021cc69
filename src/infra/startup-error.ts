import net from 'node:net';

/**
 * A start-up failure the user can fix: its message is one sentence saying what is wrong and what to
 * do, printed alone (no stack trace) before the process exits with a non-zero code.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

export const portInUse = (variable: string, port: number, detail = ''): StartupError =>
  new StartupError(
    `${variable} ${port} is already in use${detail}: stop the program using it (another instance of this service?) or set ${variable} to a free port.`,
  );

/**
 * Fails fast, before anything is started, when `port` cannot be bound on `host`; binding is the
 * only test that sees exactly what `listen` will (any address, either family, privileged ports).
 */
export async function assertPortFree(variable: string, port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(portInUse(variable, port, ` on ${host}`));
      else if (err.code === 'EACCES')
        reject(
          new StartupError(
            `${variable} ${port} needs privileges on this machine: set ${variable} to 1024 or above.`,
          ),
        );
      else if (err.code === 'EADDRNOTAVAIL')
        reject(
          new StartupError(
            `HOST ${host} is not an address of this machine: set HOST (e.g. 0.0.0.0 or 127.0.0.1).`,
          ),
        );
      else reject(err);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The sentence for an error from `server.listen` (the port was taken between the check and the listen). */
export function explainListenError(err: unknown, variable: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EADDRINUSE' ? portInUse(variable, port) : err;
}
