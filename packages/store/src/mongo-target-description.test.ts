import { describeMongoTarget } from './mongo-target-description';

describe('describeMongoTarget', () => {
  it('names the hosts of a MongoDB URL, never its credentials', () => {
    expect(describeMongoTarget('mongodb://sas:topsecret@h1:27017,h2:27017/sas?replicaSet=rs0')).toEqual({ mongo: 'h1:27017,h2:27017', srv: false });
    expect(describeMongoTarget('mongodb://127.0.0.1:27017/?directConnection=true')).toEqual({ mongo: '127.0.0.1:27017', srv: false });
    expect(describeMongoTarget('mongodb+srv://u:p%40ss@cluster0.example.net')).toEqual({ mongo: 'cluster0.example.net', srv: true });
  });
});
