import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { DataFileError } from './errors/data-file-error';
import { EmbeddedMongoServer } from './embedded-mongo-server';

let dir: string;
const servers: EmbeddedMongoServer[] = [];
const clients: MongoClient[] = [];

async function started(options: ConstructorParameters<typeof EmbeddedMongoServer>[0] = {}): Promise<{ server: EmbeddedMongoServer; client: MongoClient }> {
  const server = new EmbeddedMongoServer({ dataDir: dir, ...options });
  servers.push(server);
  const client = await MongoClient.connect((await server.start()).url);
  clients.push(client);
  return { server, client };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'embedded-mongo-server-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('EmbeddedMongoServer with a dataDir', () => {
  it('finds after a restart what it held before: documents, indexes, collection UUIDs', async () => {
    const first = await started({ sync: 'full' });
    const c = first.client.db('app').collection('orders');
    await c.createIndex({ orderId: 1 }, { unique: true });
    await c.insertMany([{ orderId: 'a', n: 1 }, { orderId: 'b', n: 2 }]);
    await c.updateOne({ orderId: 'a' }, { $inc: { n: 10 } });
    const collections = await first.client.db('app').listCollections().toArray();
    await first.client.close();
    await first.server.close();

    const second = await started();
    const again = second.client.db('app').collection('orders');
    expect(await again.find({}, { projection: { _id: 0 } }).toArray()).toEqual([{ orderId: 'a', n: 11 }, { orderId: 'b', n: 2 }]);
    expect((await again.indexes()).map((i) => i['name'])).toEqual(['_id_', 'orderId_1']);
    expect(await second.client.db('app').listCollections().toArray()).toEqual(collections);
    await expect(again.insertOne({ orderId: 'b' })).rejects.toThrow('E11000 duplicate key error collection: app.orders index: orderId_1');
    await again.find({ orderId: 'b' }).toArray();
    expect(second.server.queryStats('app', 'orders')?.lastPlan).toBe('IXSCAN orderId_1');
  });

  it('refuses to start while another server holds the folder, naming the file', async () => {
    await started();
    const second = new EmbeddedMongoServer({ dataDir: dir });
    servers.push(second);
    const file = join(dir, 'embedded-mongo.sqlite');
    const refusal = second.start();
    await expect(refusal).rejects.toThrow(DataFileError);
    await expect(refusal).rejects.toThrow(`another embedded MongoDB (or process) holds ${file}; stop it first`);
  });

  it('refuses an empty dataDir and an unknown sync mode', () => {
    expect(() => new EmbeddedMongoServer({ dataDir: '' })).toThrow('dataDir must name a folder');
    expect(() => new EmbeddedMongoServer({ dataDir: dir, sync: 'always' as 'full' })).toThrow("sync must be 'normal' or 'full' (got 'always')");
  });
});
