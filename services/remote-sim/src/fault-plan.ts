import { noFaults, type ServiceFaults } from './fault-settings';
import { simulatedServiceNames, type RemoteServiceName } from './remote-operations';

/**
 * The faults in force for each simulated service, changed at runtime by tests and demos. `set`
 * replaces a service's settings as a whole (HTTP PUT semantics), so a test states every fault it
 * wants in one place instead of depending on what an earlier test left behind.
 */
export class FaultPlan {
  private readonly byService = new Map<RemoteServiceName, ServiceFaults>();

  /** The settings in force for `service` (no faults unless set). */
  get(service: RemoteServiceName): ServiceFaults {
    return this.byService.get(service) ?? noFaults();
  }

  /** Replaces `service`'s settings. */
  set(service: RemoteServiceName, faults: ServiceFaults): void {
    this.byService.set(service, structuredClone(faults));
  }

  /** Resets one service, or every service when none is given. */
  clear(service?: RemoteServiceName): void {
    if (service === undefined) this.byService.clear();
    else this.byService.delete(service);
  }

  /** Every service's settings, copies safe to serialize. */
  snapshot(): Record<RemoteServiceName, ServiceFaults> {
    const entries = simulatedServiceNames.map((s) => [s, structuredClone(this.get(s))] as const);
    return Object.fromEntries(entries) as Record<RemoteServiceName, ServiceFaults>;
  }
}
