/** Unix socket path checks shared by the server and the client. */
import net from 'node:net';
import { ErrorCodes, XdogError } from '../errors.js';

/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 107;

/** How long a probe waits for a listener on an existing socket file to accept. */
const PROBE_TIMEOUT_MS = 2000;

export function assertSocketPathFits(socketPath: string): void {
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the socket path ${socketPath} is ${bytes} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of Unix sockets`, {
      hint: 'point XDG_RUNTIME_DIR at a shorter directory',
    });
  }
}

/** True when something accepts connections on `socketPath` (a live server), false when nothing does. */
export function probeSocket(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    const finish = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    // A listener too busy to accept within the deadline is still a listener.
    const timer = setTimeout(() => finish(true), PROBE_TIMEOUT_MS);
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
