import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { FaultProxy } from './fault-proxy';
import { waitFor } from './wait-for';

/** A client of the proxy that keeps everything it received. */
interface Peer {
  socket: Socket;
  received(): string;
  error(): NodeJS.ErrnoException | undefined;
}

function openPeer(port: number): Promise<Peer> {
  return new Promise((resolve, reject) => {
    let text = '';
    let failure: NodeJS.ErrnoException | undefined;
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, received: () => text, error: () => failure }));
    socket.on('data', (b: Buffer) => (text += b.toString()));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      failure = e;
      reject(e);
    });
  });
}

describe('FaultProxy', () => {
  let echo: Server;
  let proxy: FaultProxy;
  const peers: Socket[] = [];

  beforeAll(async () => {
    // Echoes every byte back, so a round trip crosses the proxy both ways.
    echo = createServer((s) => s.on('data', (b) => s.write(b)).on('error', () => undefined));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  });
  beforeEach(async () => {
    proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: (echo.address() as AddressInfo).port } });
  });
  afterEach(async () => {
    for (const p of peers.splice(0)) p.destroy();
    await proxy.stop();
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  async function peer(): Promise<Peer> {
    const p = await openPeer(proxy.port);
    peers.push(p.socket);
    return p;
  }

  it('passes bytes both ways', async () => {
    const p = await peer();
    p.socket.write('hello');
    await waitFor(() => p.received() === 'hello', { timeoutMs: 5_000, description: 'the echo' });
  });

  it('blackholes a link without closing it, and passes again after the heal', async () => {
    const p = await peer();
    p.socket.write('a');
    await waitFor(() => p.received() === 'a', { timeoutMs: 5_000, description: 'the first echo' });
    proxy.set({ kind: 'blackhole' });
    p.socket.write('lost');
    const late = await peer(); // a connection opened during the cut is kept too
    late.socket.write('also-lost');
    // Absence can only be shown over a window: a round trip through loopback takes well under 1 ms.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([p.received(), late.received(), proxy.openConnections]).toEqual(['a', '', 2]);
    proxy.set({ kind: 'pass' });
    p.socket.write('b');
    late.socket.write('c');
    await waitFor(() => p.received() === 'ab' && late.received() === 'c', { timeoutMs: 5_000, description: 'echoes after the heal' });
  });

  it('resets open connections and new ones while in reset mode', async () => {
    const p = await peer();
    proxy.set({ kind: 'reset' });
    await waitFor(() => p.error()?.code, { timeoutMs: 5_000, description: 'the reset' });
    expect(p.error()?.code).toBe('ECONNRESET');
    await expect(openPeer(proxy.port).then((q) => new Promise((_, reject) => q.socket.on('error', reject)))).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('delays bytes by the given time, in order, also across the switch back to pass', async () => {
    const p = await peer();
    proxy.set({ kind: 'delay', delayMs: 400 });
    const sentAt = Date.now();
    p.socket.write('1');
    await waitFor(() => proxy.clientBytes === 1, { timeoutMs: 5_000, description: 'the first byte at the proxy' });
    proxy.set({ kind: 'pass' });
    p.socket.write('2');
    await waitFor(() => p.received().length === 2, { timeoutMs: 5_000, description: 'both echoes' });
    expect(p.received()).toBe('12');
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(400);
  });
});
