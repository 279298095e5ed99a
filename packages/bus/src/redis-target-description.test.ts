import { describeRedisTarget } from './redis-target-description';

describe('describeRedisTarget', () => {
  it('says where one Redis is, never its password', () => {
    expect(describeRedisTarget('redis://default:topsecret@redis.example:6380/2')).toEqual({ redis: 'redis.example:6380/2', tls: false, cluster: false });
    expect(describeRedisTarget('rediss://cache.example')).toEqual({ redis: 'cache.example:6379', tls: true, cluster: false });
    expect(JSON.stringify(describeRedisTarget('redis://u:topsecret@h:1'))).not.toContain('topsecret');
  });

  it('lists the seed nodes of a Redis Cluster', () => {
    expect(describeRedisTarget('rediss-cluster://u:pw@10.0.0.1:7000,10.0.0.2:7001')).toEqual({ redis: '10.0.0.1:7000,10.0.0.2:7001', tls: true, cluster: true });
  });
});
