import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Long, UUID } from 'bson';
import type { Doc } from '../bson/bson-types';
import { CursorManager } from '../cursors/cursor-manager';
import { ReplicaSetMember } from '../replication/replica-set-member';
import { loadDataFile, type PersistedState } from '../storage/data-file-loader';
import type { CommandContext } from './command-context';
import { CommandDispatcher } from './command-dispatcher';

/**
 * The window a random kill -9 rarely hits, made certain: the server commits a retryable write and
 * dies before its reply leaves; the driver sends the very same command (session, txnNumber) to the
 * restarted server, which must answer with the first run's reply instead of running it again.
 */
let dir: string;
const open: PersistedState[] = [];

function startServer(): { dispatch: (cmd: Doc) => Doc; state: PersistedState } {
  const state = loadDataFile(dir, 'normal');
  open.push(state);
  const replication = new ReplicaSetMember('rs0', () => Date.now());
  replication.listeningOn('127.0.0.1:1');
  const ctx: CommandContext = {
    catalog: state.catalog,
    cursors: new CursorManager(() => Date.now()),
    replication,
    retryableWrites: state.retryableWrites,
    connectionId: 1,
    now: () => new Date(),
  };
  const dispatcher = new CommandDispatcher(
    (error) => {
      throw error;
    },
    () => state.journal.commit(),
  );
  return { dispatch: (cmd) => dispatcher.dispatch(cmd, ctx), state };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'embedded-mongo-retry-'));
});
afterEach(() => {
  for (const state of open.splice(0)) state.journal.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('when the server dies after committing a retryable write and before replying', () => {
  const lsid = { id: new UUID() };

  it('answers the retry on the restarted server with the first reply: an $inc is not applied twice', () => {
    const first = startServer();
    first.dispatch({ insert: 'c', documents: [{ _id: 1, n: 0 }], $db: 'db' });
    const inc: Doc = {
      findAndModify: 'c',
      query: { _id: 1 },
      update: { $inc: { n: 1 } },
      new: true,
      lsid,
      txnNumber: Long.fromNumber(7),
      $db: 'db',
    };
    const reply = first.dispatch(inc);
    expect(reply['value']).toEqual({ _id: 1, n: 1 });
    first.state.journal.close(); // kill -9: what was committed is all there is

    const restarted = startServer();
    expect(restarted.dispatch(inc)).toEqual(reply);
    expect(restarted.dispatch({ find: 'c', filter: {}, $db: 'db' })['cursor']).toMatchObject({ firstBatch: [{ _id: 1, n: 1 }] });
  });

  it('answers a retried insert with its first reply instead of refusing it as a duplicate of itself', () => {
    const first = startServer();
    const insert: Doc = { insert: 'c', documents: [{ _id: 'a' }], lsid, txnNumber: Long.fromNumber(1), $db: 'db' };
    const reply = first.dispatch(insert);
    expect(reply).toMatchObject({ n: 1, ok: 1 });
    first.state.journal.close();

    expect(startServer().dispatch(insert)).toEqual(reply);
  });
});
