import { parseRedisUrl, redactRedisUrl } from './redis-url';

describe('parseRedisUrl', () => {
  it('passes a single Redis URL through unchanged, TLS or not', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379/2')).toEqual({ kind: 'node', url: 'redis://127.0.0.1:6379/2' });
    expect(parseRedisUrl('rediss://u:p@redis.example:6380')).toEqual({ kind: 'node', url: 'rediss://u:p@redis.example:6380' });
  });

  it('reads the seed nodes of a cluster in the order given', () => {
    expect(parseRedisUrl('redis-cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002')).toEqual({
      kind: 'cluster',
      tls: false,
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      natMap: {},
    });
  });

  it('reads TLS, a percent-encoded user and password, a trailing slash and a natMap', () => {
    expect(
      parseRedisUrl('rediss-cluster://app%40shop:p%40ss%3Aword@clustercfg.shop.cache.example:6379/?natMap=10.0.0.5:6379=node-a.example:7001,10.0.0.6:6379=node-b.example:7002'),
    ).toEqual({
      kind: 'cluster',
      tls: true,
      username: 'app@shop',
      password: 'p@ss:word',
      nodes: [{ host: 'clustercfg.shop.cache.example', port: 6379 }],
      natMap: { '10.0.0.5:6379': { host: 'node-a.example', port: 7001 }, '10.0.0.6:6379': { host: 'node-b.example', port: 7002 } },
    });
  });

  it('takes a password without a user, as AUTH <password> does', () => {
    expect(parseRedisUrl('redis-cluster://:s3cret@h:1')).toMatchObject({ password: 's3cret' });
    expect(parseRedisUrl('redis-cluster://:s3cret@h:1')).not.toHaveProperty('username');
  });

  it.each([
    ['http://h:1', "Redis URL 'http://h:1' has an unknown scheme; use redis://"],
    ['redis-cluster://', "Redis URL 'redis-cluster://' lists no node"],
    ['redis-cluster://h1:7000,h2', "node 'h2' of Redis URL 'redis-cluster://h1:7000,h2' is not host:port"],
    ['redis-cluster://h1:70000', 'is not host:port (a port from 1 to 65535 is required)'],
    ['redis-cluster://h1:7000/3', 'names a database; a Redis Cluster has only database 0'],
    ['redis-cluster://h1:7000?tls=true', 'unknown option(s) tls; the only option is natMap'],
    ['redis-cluster://h1:7000?natMap=a:1', "natMap entry 'a:1' of Redis URL"],
  ])('refuses %s, saying what is wrong', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('never repeats a password in its messages', () => {
    expect(() => parseRedisUrl('redis-cluster://user:topsecret@h1')).toThrow("'redis-cluster://user:***@h1'");
    expect(redactRedisUrl('rediss://default:pw@redis.example:6380')).toBe('rediss://default:***@redis.example:6380');
  });
});
