import { accessSync, constants } from 'node:fs';
import type { MongoMemoryServer } from 'mongodb-memory-server-core';
import type { MongoTarget } from './mongo-target';

/**
 * Starts a real `mongod` from `binary` through mongodb-memory-server-core. The binary is always
 * given as `systemBinary`, which makes the library use it or fail; it never downloads one.
 */
export async function startMemoryServerMongo(binary: string, reason: string): Promise<MongoTarget> {
  try {
    accessSync(binary, constants.X_OK);
  } catch (error) {
    throw new Error(
      `MongoDB: mongod binary ${binary} does not exist or is not executable; ` +
        'fix MONGOMS_SYSTEM_BINARY / PATH, or set MONGO_URL to use an existing MongoDB',
      { cause: error },
    );
  }
  // Loaded lazily: most runs on this project's machines never get here, and the library pulls in
  // its download machinery at load time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { MongoMemoryServer: Server } = require('mongodb-memory-server-core') as {
    MongoMemoryServer: typeof MongoMemoryServer;
  };
  let server: MongoMemoryServer;
  try {
    server = await Server.create({ binary: { systemBinary: binary }, instance: { ip: '127.0.0.1' } });
  } catch (error) {
    throw new Error(
      `MongoDB: could not start mongod from ${binary} through mongodb-memory-server-core ` +
        `(${(error as Error).message}); fix MONGOMS_SYSTEM_BINARY / PATH, or set MONGO_URL to use an existing MongoDB`,
      { cause: error },
    );
  }
  let stopping: Promise<void> | undefined;
  return {
    url: server.getUri(),
    kind: 'memory-server',
    reason,
    stop: () => {
      stopping ??= server.stop().then(() => undefined);
      return stopping;
    },
  };
}
