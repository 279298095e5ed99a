import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { AgentPauseAction } from '@sas/contracts';
import type { AgentPauseModel } from './agent-pause-model';
import { sendError } from './api-errors';
import { noteAudit } from './audit-trail';
import { principalOf } from './dashboard-access';
import { OperatorRequestBody, operatorBy } from './operator-request';
import { parseInput } from './parse-input';
import { noQuery } from './no-query';

/** What {@link agentRoutes} needs. */
export interface AgentRoutesDeps {
  agents: AgentPauseModel;
  logger: Logger;
  now: () => Date;
}

const AgentParams = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'an agent name is 1 to 100 letters, digits, _ or -, as in agent.<name>.requests'),
});

/**
 * `/api/agents`: each agent's pause state, and pausing or resuming one (operators only; the access
 * layer refuses a viewer's POST). A pause holds new dispatches to the agent, forward steps and
 * compensations alike, without spending retries or failure counts; a resume releases them at the
 * schedulers' bounded rate. Both are recorded on the agent with who did it and why.
 */
export function agentRoutes(deps: AgentRoutesDeps): Router {
  const router = Router();

  router.get('/', noQuery, async (_req, res) => {
    res.json({ agents: await deps.agents.list() });
  });

  router.post('/:name/pause', noQuery, (req, res) => change('pause', req, res));
  router.post('/:name/resume', noQuery, (req, res) => change('resume', req, res));

  async function change(action: AgentPauseAction['action'], req: Request, res: Response): Promise<void> {
    noteAudit(res, { action: `agent.${action}`, target: `agent ${String(req.params['name'])}` });
    const params = parseInput(AgentParams, req.params, 'path');
    if (!params.ok) return sendError(res, 400, params.error);
    const rawBody: unknown = req.body;
    const body = parseInput(OperatorRequestBody, rawBody ?? {}, 'body');
    if (!body.ok) return sendError(res, 400, body.error);
    const agent = params.data.name;
    if (action === 'pause' && !body.data.reason) {
      return sendError(res, 400, `Say why you pause ${agent}: send {"reason":"…"} (it is recorded with your name)`);
    }
    if (!(await deps.agents.knows(agent))) {
      const known = (await deps.agents.list()).map((a) => a.agent).join(', ');
      return sendError(res, 404, `No agent '${agent}' is known here (known: ${known}); check the name, or add it to the dashboard's AGENTS`);
    }
    if (body.data.reason) noteAudit(res, { detail: body.data.reason });
    const by = operatorBy(principalOf(res)?.id);
    const outcome = await deps.agents.set({ agent, action, by, reason: body.data.reason, now: deps.now().getTime() });
    deps.logger.info({ action, agent, by, reason: body.data.reason, changed: outcome.changed }, outcome.message);
    res.json({ changed: outcome.changed, message: outcome.message, agent: (await deps.agents.list()).find((a) => a.agent === agent) });
  }

  return router;
}
