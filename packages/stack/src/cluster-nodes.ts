/** One line of `CLUSTER NODES`: a node as one member of the cluster sees it. */
export interface ClusterNode {
  id: string;
  port: number;
  /** `master` or `replica` as last known; a failed master keeps its role until a replica takes over. */
  role: 'master' | 'replica';
  /** Flagged `fail` (agreed dead by the masters) or `fail?` (suspected by this member). */
  failing: boolean;
  /** For a replica, the id of its master. */
  masterId: string | undefined;
  /** How many hash slots it serves (masters only). */
  slots: number;
  /** The slot ranges it serves, `[from, to]` inclusive. */
  ranges: [number, number][];
}

/**
 * Parses `CLUSTER NODES`: `<id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slot>...`.
 * Slots are single numbers or `from-to` ranges; importing/migrating markers (`[...]`) are not counted.
 */
export function parseClusterNodes(text: string): ClusterNode[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line): Omit<ClusterNode, 'slots'> => {
      const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.split(' ');
      const flagSet = new Set(flags.split(','));
      const port = Number(/:(\d+)@/.exec(address)?.[1]);
      return {
        id,
        port,
        role: flagSet.has('master') ? 'master' : 'replica',
        failing: flagSet.has('fail') || flagSet.has('fail?'),
        masterId: master === '-' ? undefined : master,
        ranges: slots.filter((s) => !s.startsWith('[')).map(slotRange),
      };
    })
    .map((node) => ({ ...node, slots: node.ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0) }));
}

function slotRange(text: string): [number, number] {
  const [from, to] = text.split('-').map(Number) as [number, number | undefined];
  return [from, to ?? from];
}

