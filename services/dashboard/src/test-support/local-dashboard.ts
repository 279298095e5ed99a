import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createDashboardApp, type DashboardAppDeps } from '../dashboard-app';
import { DashboardCredentials } from '../dashboard-credentials';
import { FakeCommandSender } from './fake-command-sender';
import { FakeReadModel } from './fake-read-model';
import { InMemoryAuditLog } from './in-memory-audit-log';
import { processDoc } from './process-doc';

/** An operator token and a named operator token (`operator:alice:<token>`) the local dashboard accepts. */
export const LOCAL_OPERATOR = 'a6ecff892b26155db43753179423b482';
export const LOCAL_ALICE = 'c3d8e1f04b2a96d75e1f08c4a3b7d29e';

/** A dashboard on a loopback port with fakes behind it and no queues: needs no Redis and no MongoDB. */
export interface LocalDashboard {
  base: string;
  audit: InMemoryAuditLog;
  commands: FakeCommandSender;
  close(): Promise<void>;
}

/**
 * Serves {@link createDashboardApp} with fakes (process `p1` of order `A-1` in Error) and the
 * tokens above, for unit tests of the HTTP layer that need no Redis; `deps` overrides any part.
 */
export async function startLocalDashboard(deps: Partial<DashboardAppDeps> = {}): Promise<LocalDashboard> {
  const audit = new InMemoryAuditLog();
  const commands = new FakeCommandSender();
  const readModel = new FakeReadModel();
  readModel.processes = [processDoc({ _id: 'p1', orderId: 'A-1', state: 'Error' })];
  const auth = new DashboardCredentials([
    { role: 'operator', token: LOCAL_OPERATOR },
    { role: 'operator', name: 'alice', token: LOCAL_ALICE },
  ]);
  const app = createDashboardApp({ audit, readModel, alerts: { newest: async () => [] }, queues: [], commands, auth, logger: pino({ level: 'silent' }), redisReady: () => true, instanceId: 'local-test', queuePrefix: 'sas-test', ...deps });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    audit,
    commands,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
