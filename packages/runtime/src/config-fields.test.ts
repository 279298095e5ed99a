import { z } from 'zod';
import { CommonConfig } from './config-fields';
import { ConfigError } from './errors/config-error';
import { loadConfig } from './load-config';

const Common = z.object(CommonConfig);

describe('CommonConfig', () => {
  it('takes one Redis or a Redis Cluster in REDIS_URL', () => {
    expect(loadConfig(Common, {}).REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(loadConfig(Common, { REDIS_URL: 'rediss://default:pw@redis.example:6380' }).REDIS_URL).toBe('rediss://default:pw@redis.example:6380');
    expect(loadConfig(Common, { REDIS_URL: 'redis-cluster://10.0.0.1:6379,10.0.0.2:6379' }).REDIS_URL).toBe('redis-cluster://10.0.0.1:6379,10.0.0.2:6379');
    expect(loadConfig(Common, { REDIS_URL: 'rediss-cluster://u:pw@cfg.example:6379' }).REDIS_URL).toBe('rediss-cluster://u:pw@cfg.example:6379');
  });

  it('refuses a REDIS_URL it cannot use, saying why and which forms work, without repeating the password', () => {
    const load = (url: string) => () => loadConfig(Common, { REDIS_URL: url });
    expect(load('http://h:1')).toThrow(ConfigError);
    expect(load('http://h:1')).toThrow(/REDIS_URL: Redis URL 'http:\/\/h:1' has an unknown scheme; use redis:\/\/\[user:password@\]host:port/);
    expect(load('redis-cluster://u:topsecret@h1:7000,h2')).toThrow(/node 'h2' of Redis URL 'redis-cluster:\/\/u:\*\*\*@h1:7000,h2' is not host:port/);
    expect(load('redis-cluster://u:topsecret@h1:7000,h2')).not.toThrow(/topsecret/);
  });

  it('refuses a QUEUE_PREFIX with a hash tag, since every queue adds its own', () => {
    expect(loadConfig(Common, { QUEUE_PREFIX: 'shop' }).QUEUE_PREFIX).toBe('shop');
    expect(() => loadConfig(Common, { QUEUE_PREFIX: '{sas}' })).toThrow(/QUEUE_PREFIX: QUEUE_PREFIX '\{sas\}' contains '\{' or '\}'; leave the hash tag out/);
  });
});

describe('CommonConfig probe server', () => {
  it('is off by default and, when on, listens on loopback unless PROBE_HOST says otherwise', () => {
    expect(loadConfig(Common, {})).toMatchObject({ PROBE_PORT: -1, PROBE_HOST: '127.0.0.1' });
    expect(loadConfig(Common, { PROBE_PORT: '9100', PROBE_HOST: '0.0.0.0' })).toMatchObject({ PROBE_PORT: 9100, PROBE_HOST: '0.0.0.0' });
  });
});

describe('CommonConfig liveness bounds', () => {
  it('has documented defaults, each overridable', () => {
    const config = loadConfig(Common, {});
    expect([config.REDIS_COMMAND_TIMEOUT_MS, config.REDIS_CONSUMER_TIMEOUT_MS, config.REDIS_STALL_MS, config.MONGO_SOCKET_TIMEOUT_MS, config.MONGO_HEARTBEAT_MS]).toEqual([5_000, 15_000, 3_000, 20_000, 2_000]);
    expect(loadConfig(Common, { REDIS_STALL_MS: '1500' }).REDIS_STALL_MS).toBe(1_500);
  });

  it('refuses a consumer timeout shorter than BullMQ\'s longest wait for jobs', () => {
    expect(() => loadConfig(Common, { REDIS_CONSUMER_TIMEOUT_MS: '5000' })).toThrow(/REDIS_CONSUMER_TIMEOUT_MS must be at least 12000: BullMQ's wait for jobs lasts up to 11000 ms/);
  });
});
