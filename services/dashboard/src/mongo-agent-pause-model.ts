import type { Collection, Db } from 'mongodb';
import type { AgentPauseChange, AgentPauseDocument, AgentPauseRequest, ProcessDocument } from '@sas/contracts';
import { CollectionNames, MongoAgentPauseStore, setAgentPause } from '@sas/store';
import type { AgentPauseModel, AgentView } from './agent-pause-model';

/** {@link AgentPauseModel} on MongoDB: `agent_pauses` for the state, the `held` index for the counts. */
export class MongoAgentPauseModel implements AgentPauseModel {
  private readonly pauses: MongoAgentPauseStore;
  private readonly processes: Collection<ProcessDocument>;

  constructor(
    db: Db,
    /** The configured agents (`AGENTS`): shown even when never paused. */
    private readonly agents: readonly string[],
  ) {
    this.pauses = new MongoAgentPauseStore(db);
    this.processes = db.collection<ProcessDocument>(CollectionNames.processes);
  }

  async list(): Promise<AgentView[]> {
    const docs = new Map((await this.pauses.list()).map((d) => [d._id, d]));
    const names = [...new Set([...this.agents, ...docs.keys()])].sort();
    return Promise.all(names.map(async (agent) => view(agent, docs.get(agent), await this.processes.countDocuments({ heldFor: agent, state: 'Pending' }))));
  }

  async knows(agent: string): Promise<boolean> {
    return this.agents.includes(agent) || (await this.pauses.get(agent)) !== null;
  }

  set(request: AgentPauseRequest): Promise<AgentPauseChange> {
    return setAgentPause(this.pauses, request);
  }
}

function view(agent: string, doc: AgentPauseDocument | undefined, held: number): AgentView {
  return {
    agent,
    paused: doc?.paused ?? false,
    by: doc?.by ?? null,
    reason: doc?.reason ?? null,
    since: doc ? doc.since.toISOString() : null,
    held,
    history: (doc?.history ?? []).map((h) => ({ ...h, at: h.at.toISOString() })),
  };
}
