/** Where the CLI's non-demo commands find the system: the same variables the services use. */
export interface CliEnv {
  redisUrl: string;
  mongoUrl: string;
  mongoDb: string;
  prefix: string;
}

/** Reads the CLI's environment; defaults match the services' defaults. */
export function cliEnv(env: NodeJS.ProcessEnv): CliEnv {
  return {
    redisUrl: env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    mongoUrl: env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/?directConnection=true',
    mongoDb: env['MONGO_DB'] ?? 'sas',
    prefix: env['QUEUE_PREFIX'] ?? 'sas',
  };
}
