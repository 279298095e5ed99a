import { parseClusterNodes } from './cluster-nodes';

const NODES = [
  '07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected',
  '67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922',
  '292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383',
  '6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 slave 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 1426238316232 5 connected',
  'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master,fail? - 0 0 1 connected 0-5459 5460 [5461->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]',
].join('\n');

describe('parseClusterNodes', () => {
  it('reads each node’s port, role, master, slot count and failure flags', () => {
    const byPort = Object.fromEntries(parseClusterNodes(`${NODES}\n`).map((n) => [n.port, n]));
    expect(byPort[30001]).toEqual({ id: 'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca', port: 30001, role: 'master', failing: true, masterId: undefined, slots: 5461, ranges: [[0, 5459], [5460, 5460]] });
    expect(byPort[30002]).toMatchObject({ role: 'master', failing: false, slots: 5462 });
    expect(byPort[30003]).toMatchObject({ role: 'master', slots: 5461 });
    expect(byPort[30004]).toMatchObject({ role: 'replica', masterId: 'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca', slots: 0 });
    expect(Object.keys(byPort)).toHaveLength(5);
  });
});
