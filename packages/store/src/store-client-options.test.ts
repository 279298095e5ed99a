import { DEFAULT_STORE_LIVENESS, storeClientOptions } from './store-client-options';

describe('storeClientOptions', () => {
  it('writes with a majority and retries writes and reads when the URL says nothing', () => {
    expect(storeClientOptions('mongodb://127.0.0.1:27017/?directConnection=true')).toEqual({
      serverSelectionTimeoutMS: 5000,
      connectTimeoutMS: 5000,
      socketTimeoutMS: 20000,
      heartbeatFrequencyMS: 2000,
      maxIdleTimeMS: 60000,
      maxPoolSize: 20,
      writeConcern: { w: 'majority' },
      retryWrites: true,
      retryReads: true,
    });
  });

  it('reads the options of a replica-set URL with several hosts', () => {
    const options = storeClientOptions('mongodb://sas:secret@h1:27017,h2:27017,h3:27017/sas?replicaSet=rs0&authSource=admin');
    expect(options).toMatchObject({ writeConcern: { w: 'majority' }, retryWrites: true, retryReads: true });
  });

  it("keeps the URL's own write concern and retry settings, whatever their case", () => {
    const options = storeClientOptions('mongodb://h1,h2/sas?replicaSet=rs0&w=1&RetryWrites=false&retryreads=false');
    expect(options.writeConcern).toBeUndefined();
    expect(options.retryWrites).toBeUndefined();
    expect(options.retryReads).toBeUndefined();
    expect(storeClientOptions('mongodb://h1/?journal=true').writeConcern).toBeUndefined();
  });

  it('accepts a URL without a query', () => {
    expect(storeClientOptions('mongodb+srv://cluster0.example.net').writeConcern).toEqual({ w: 'majority' });
  });

  it("bounds every wait on MongoDB, the URL's own timeouts first", () => {
    const options = storeClientOptions('mongodb://h1/?socketTimeoutMS=0', { ...DEFAULT_STORE_LIVENESS, heartbeatMs: 700 });
    expect(options.socketTimeoutMS).toBeUndefined();
    expect(options).toMatchObject({ heartbeatFrequencyMS: 700, serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, maxIdleTimeMS: 60000 });
  });
});
