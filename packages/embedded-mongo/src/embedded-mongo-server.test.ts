import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { deserialize, serialize, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from './embedded-mongo-server';

function opMsg(requestId: number, body: Document, flags = 0): Buffer {
  const doc = Buffer.from(serialize(body));
  const out = Buffer.alloc(21 + doc.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(0, 8);
  out.writeInt32LE(2013, 12);
  out.writeUInt32LE(flags, 16);
  out.writeUInt8(0, 20);
  doc.copy(out, 21);
  return out;
}

function opQuery(requestId: number, collection: string, query: Document): Buffer {
  const name = Buffer.from(`${collection}\0`);
  const doc = Buffer.from(serialize(query));
  const out = Buffer.alloc(16 + 4 + name.length + 8 + doc.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(2004, 12);
  name.copy(out, 20);
  out.writeInt32LE(-1, 20 + name.length + 4);
  doc.copy(out, 20 + name.length + 8);
  return out;
}

/**
 * The bytes of a document nested `levels` deep (the root counts), built without recursion so that
 * no encoder's stack limits the depth: each level is `{ a: ... }` (or `[ ... ]`), the innermost
 * is empty. The official driver's own encoder overflows its stack near 2,000 levels.
 */
function deepBytes(levels: number, kind: 'object' | 'array'): Buffer {
  const type = kind === 'object' ? 0x03 : 0x04;
  const key = kind === 'object' ? 0x61 : 0x30; // 'a', or array index '0'
  const total = 5 + 8 * (levels - 1);
  const out = Buffer.alloc(total);
  for (let level = 0; level < levels; level++) {
    const start = 7 * level;
    out.writeInt32LE(total - 8 * level, start);
    if (level < levels - 1) out.set([type, key, 0], start + 4);
    out[total - 1 - level] = 0;
  }
  return out;
}

/** `{ insert: collection, $db: db, documents: [document] }` as raw BSON, around already-encoded document bytes. */
function rawInsert(db: string, collection: string, document: Buffer): Buffer {
  const head = Buffer.from(serialize({ insert: collection, $db: db }));
  const array = Buffer.concat([Buffer.alloc(4), Buffer.from([0x03, 0x30, 0]), document, Buffer.from([0])]);
  array.writeInt32LE(array.length, 0);
  const element = Buffer.concat([Buffer.from([0x04]), Buffer.from('documents\0'), array]);
  const body = Buffer.concat([head.subarray(0, head.length - 1), element, Buffer.from([0])]);
  body.writeInt32LE(body.length, 0);
  return body;
}

/** An OP_MSG around an already-encoded body. */
function rawOpMsg(requestId: number, body: Buffer): Buffer {
  const out = Buffer.alloc(21 + body.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(2013, 12);
  body.copy(out, 21);
  return out;
}

/** A raw wire client that collects whole replies. */
class RawClient {
  private buffered = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  readonly replies: { opCode: number; responseTo: number; body: Document }[] = [];

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= this.buffered.readInt32LE(0)) {
        const message = this.buffered.subarray(0, this.buffered.readInt32LE(0));
        this.buffered = this.buffered.subarray(message.length);
        const opCode = message.readInt32LE(12);
        const body = deserialize(message.subarray(opCode === 1 ? 36 : 21));
        this.replies.push({ opCode, responseTo: message.readInt32LE(8), body });
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return new RawClient(socket);
  }

  async waitForReplies(count: number): Promise<void> {
    const deadline = Date.now() + 5000;
    while (this.replies.length < count) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${count} replies (got ${this.replies.length})`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
}

describe('EmbeddedMongoServer on the wire', () => {
  let server: EmbeddedMongoServer;
  let port: number;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    server = new EmbeddedMongoServer();
    port = (await server.start()).port;
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await server.close();
  });

  async function client(): Promise<RawClient> {
    const raw = await RawClient.open(port);
    sockets.push(raw.socket);
    return raw;
  }

  it('answers the legacy OP_QUERY isMaster with an OP_REPLY describing a standalone', async () => {
    const raw = await client();
    raw.socket.write(opQuery(7, 'admin.$cmd', { isMaster: 1, helloOk: true }));
    await raw.waitForReplies(1);
    expect(raw.replies[0]).toMatchObject({ opCode: 1, responseTo: 7 });
    expect(raw.replies[0]?.body).toMatchObject({ ismaster: true, helloOk: true, maxWireVersion: 21, ok: 1 });
    expect(raw.replies[0]?.body['setName']).toBeUndefined();
  });

  it('refuses other OP_QUERY commands with code 352', async () => {
    const raw = await client();
    raw.socket.write(opQuery(8, 'test.$cmd', { find: 'x' }));
    await raw.waitForReplies(1);
    expect(raw.replies[0]?.body).toMatchObject({ ok: 0, code: 352 });
  });

  it('reassembles a command split into single bytes and answers two commands sent in one chunk', async () => {
    const raw = await client();
    for (const byte of opMsg(1, { ping: 1, $db: 'admin' })) raw.socket.write(Buffer.from([byte]));
    await raw.waitForReplies(1);
    raw.socket.write(
      Buffer.concat([opMsg(2, { ping: 1, $db: 'admin' }), opMsg(3, { nope: 1, $db: 'admin' })]),
    );
    await raw.waitForReplies(3);
    expect(raw.replies.map((r) => [r.opCode, r.responseTo, r.body['ok']])).toEqual([
      [2013, 1, 1],
      [2013, 2, 1],
      [2013, 3, 0],
    ]);
    expect(raw.replies[2]?.body).toMatchObject({ code: 59, errmsg: "no such command: 'nope'" });
  });

  it('applies a moreToCome write without replying to it', async () => {
    const raw = await client();
    raw.socket.write(opMsg(1, { insert: 'c', documents: [{ _id: 1 }], $db: 'wire' }, 2));
    raw.socket.write(opMsg(2, { count: 'c', $db: 'wire' }));
    await raw.waitForReplies(1);
    expect(raw.replies).toHaveLength(1);
    expect(raw.replies[0]).toMatchObject({ responseTo: 2, body: { n: 1, ok: 1 } });
  });

  it.each(['object', 'array'] as const)(
    'answers Overflow (15) to a command nested 100,000 levels by %s and keeps serving every connection',
    async (kind) => {
      const raw = await client();
      raw.socket.write(rawOpMsg(1, rawInsert('wire', 'c', deepBytes(100_000, kind))));
      await raw.waitForReplies(1);
      expect(raw.replies[0]).toMatchObject({
        responseTo: 1,
        body: { ok: 0, code: 15, codeName: 'Overflow' },
      });
      expect(String(raw.replies[0]?.body['errmsg'])).toContain('BSONObj exceeds maximum nested object depth');
      raw.socket.write(opMsg(2, { count: 'c', $db: 'wire' }));
      await raw.waitForReplies(2);
      expect(raw.replies[1]).toMatchObject({ responseTo: 2, body: { n: 0, ok: 1 } });
      const other = await MongoClient.connect(server.url, { serverSelectionTimeoutMS: 5000 });
      try {
        expect(await other.db('admin').command({ ping: 1 })).toMatchObject({ ok: 1 });
      } finally {
        await other.close();
      }
    },
  );

  it('parses a command nested 201 levels counting its root, and refuses one nested 202', async () => {
    const raw = await client();
    // The body is level 1, `documents` level 2, so a 199-level document reaches level 201: it
    // parses, then fails the 180-level storage limit as a write error; one more level fails parsing.
    raw.socket.write(rawOpMsg(1, rawInsert('wire', 'c', deepBytes(199, 'object'))));
    raw.socket.write(rawOpMsg(2, rawInsert('wire', 'c', deepBytes(200, 'object'))));
    await raw.waitForReplies(2);
    expect(raw.replies[0]?.body).toMatchObject({
      ok: 1,
      n: 0,
      writeErrors: [
        { index: 0, code: 15, errmsg: 'cannot insert document because it exceeds 180 levels of nesting' },
      ],
    });
    expect(raw.replies[1]?.body).toMatchObject({ ok: 0, code: 15, codeName: 'Overflow' });
  });

  it('closes only the offending connection when a deeply nested message is malformed', async () => {
    const raw = await client();
    const bytes = deepBytes(100_000, 'object');
    bytes.writeInt32LE(3, 7 * 50); // an impossible length 50 levels down
    raw.socket.write(rawOpMsg(1, rawInsert('wire', 'c', bytes)));
    await once(raw.socket, 'close');
    const other = await client();
    other.socket.write(opMsg(2, { ping: 1, $db: 'admin' }));
    await other.waitForReplies(1);
    expect(other.replies[0]?.body).toMatchObject({ ok: 1 });
  });

  it('closes the connection on an unknown opcode', async () => {
    const raw = await client();
    const bogus = Buffer.alloc(16);
    bogus.writeInt32LE(16, 0);
    bogus.writeInt32LE(9999, 12);
    raw.socket.write(bogus);
    await once(raw.socket, 'close');
    expect(raw.socket.destroyed).toBe(true);
  });

  it('closes idempotently, dropping connected clients', async () => {
    const raw = await client();
    const closed = once(raw.socket, 'close');
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
    await closed;
    expect(raw.socket.destroyed).toBe(true);
  });

  it('refuses to report a URL before it is started', () => {
    expect(() => new EmbeddedMongoServer().url).toThrow('await start() before reading url');
    expect(server.url).toBe(`mongodb://127.0.0.1:${port}/?directConnection=true`);
  });
});

describe('embedded-mongo CLI', () => {
  it('prints one listening line, serves the driver and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [join(__dirname, '..', 'dist', 'cli.js'), '--port', '0', '--ttl-interval-ms', '500'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = once(child, 'exit');
    try {
      const lines = createInterface({ input: child.stdout });
      const [line] = (await once(lines, 'line')) as [string];
      const ready = JSON.parse(line) as { event: string; url: string; port: number };
      expect(ready).toMatchObject({ event: 'listening', port: expect.any(Number) });
      const mongo = await MongoClient.connect(ready.url, { serverSelectionTimeoutMS: 5000 });
      try {
        await mongo.db('cli').collection('c').insertOne({ a: 1 });
        expect(await mongo.db('cli').collection('c').countDocuments()).toBe(1);
      } finally {
        await mongo.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });
});

describe('EmbeddedMongoServer as a standalone', () => {
  it('cannot step down, and says so the way MongoDB does', async () => {
    const server = new EmbeddedMongoServer();
    const { url } = await server.start();
    const client = await MongoClient.connect(url);
    try {
      expect(() => server.stepDown(1000)).toThrow('a standalone server cannot step down; start it with a replica set name');
      await expect(client.db('admin').command({ replSetStepDown: 1, force: true })).rejects.toMatchObject({ code: 76, codeName: 'NoReplicationEnabled' });
      const hello = await client.db('admin').command({ hello: 1 });
      expect(hello['setName']).toBeUndefined();
      expect(hello['isWritablePrimary']).toBe(true);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('refuses a replica set name that a connection string could not carry', () => {
    expect(() => new EmbeddedMongoServer({ replicaSet: 'rs 0' })).toThrow("replicaSet must be a name of letters, digits, '_' and '-' (got 'rs 0')");
  });
});
