import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { AgentPauseModel, AgentView } from './agent-pause-model';

/**
 * Per agent: whether it is paused and how many processes are held for it, read at scrape time
 * (each gauge reads on its own collect: prom-client collects them one after the other). A read that
 * fails leaves the gauge out of that scrape and says why in the log.
 */
export function registerAgentPauseMetrics(registry: Registry, agents: Pick<AgentPauseModel, 'list'>, logger: Logger): void {
  const gauge = (name: string, help: string, value: (a: AgentView) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['agent'],
      registers: [registry],
      async collect() {
        this.reset();
        try {
          for (const a of await agents.list()) this.set({ agent: a.agent }, value(a));
        } catch (e) {
          logger.warn({ err: e instanceof Error ? e.message : String(e) }, `could not read agent pauses for /metrics; ${name} left out of this scrape`);
        }
      },
    });
  };
  gauge('sas_agent_paused', '1 while an operator has paused the agent (dispatches to it are held), else 0', (a) => (a.paused ? 1 : 0));
  gauge('sas_agent_held_processes', 'Pending processes held for the agent: paused, or resumed and not yet released', (a) => a.held);
}
