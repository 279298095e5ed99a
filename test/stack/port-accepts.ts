import { connect } from 'node:net';

/** Whether something accepts TCP connections on 127.0.0.1:port (a server that was stopped does not). */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
