import { ObjectId } from 'bson';
import type { Doc } from '../bson/bson-types';

/**
 * The server's place in its replica set: none (a standalone, the default), or the only member of
 * a one-member set, primary except while stepped down. A step-down here is what a real primary
 * does in an election: `hello` reports a secondary, writes are refused with NotWritablePrimary
 * (code 10107), and after the step-down period the member is elected again, with a new
 * `electionId` so that drivers take it for the new primary and not for a stale one.
 */
export class ReplicaSetMember {
  private steppedDownUntil = 0;
  private electionId = new ObjectId();
  private host = '';

  /** `setName` undefined: a standalone, which cannot step down. */
  constructor(
    readonly setName: string | undefined,
    private readonly now: () => number,
  ) {}

  /** The `host:port` this member names itself by in `hello` (`me`, `hosts`, `primary`); known once listening. */
  listeningOn(host: string): void {
    this.host = host;
  }

  /** Steps down for `forMs`; the member is primary again afterwards. Returns when. */
  stepDown(forMs: number): Date {
    if (this.setName === undefined) throw new Error('a standalone server cannot step down; start it with a replica set name');
    if (!Number.isFinite(forMs) || forMs <= 0) throw new RangeError(`a step-down lasts a positive number of milliseconds (got ${forMs})`);
    this.steppedDownUntil = Math.max(this.steppedDownUntil, this.now() + forMs);
    return new Date(this.steppedDownUntil);
  }

  /** Whether writes are taken now. A standalone always takes them. */
  isWritablePrimary(): boolean {
    if (this.steppedDownUntil === 0) return true;
    if (this.now() < this.steppedDownUntil) return false;
    // The step-down period is over: this member wins the next election, in a new term.
    this.steppedDownUntil = 0;
    this.electionId = new ObjectId();
    return true;
  }

  /** The replica-set fields of `hello` (none for a standalone). */
  helloFields(): Doc {
    if (this.setName === undefined) return {};
    const primary = this.isWritablePrimary();
    return {
      setName: this.setName,
      setVersion: 1,
      hosts: [this.host],
      me: this.host,
      secondary: !primary,
      ...(primary ? { primary: this.host, electionId: this.electionId } : {}),
    };
  }
}
