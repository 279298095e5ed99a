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
    .map((line) => {
      const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.split(' ');
      const flagSet = new Set(flags.split(','));
      const port = Number(/:(\d+)@/.exec(address)?.[1]);
      return {
        id,
        port,
        role: flagSet.has('master') ? 'master' : 'replica',
        failing: flagSet.has('fail') || flagSet.has('fail?'),
        masterId: master === '-' ? undefined : master,
        slots: slots.filter((s) => !s.startsWith('[')).reduce((sum, s) => sum + slotCount(s), 0),
      };
    });
}

function slotCount(range: string): number {
  const [from, to] = range.split('-').map(Number);
  return to === undefined ? 1 : (to as number) - (from as number) + 1;
}
