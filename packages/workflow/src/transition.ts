import type { ProcessDocument } from '@sas/contracts';
import { applyReply } from './apply-reply';
import { applySignal } from './apply-signal';
import { claim } from './claim';
import { cancel, repeatedCommand, resubmit } from './operator-actions';
import { undelivered } from './undelivered';
import type { ProcessInput } from './process-input';
import { expireGroup, inGroup } from './parallel-group';
import { expiryReason } from './expiry-reason';
import { ProcessDraft } from './process-draft';
import { isExpired, recoverFailure } from './recover';
import { startStage } from './start-stage';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';

/**
 * The whole protocol as one pure function: (process, input) → (next process, actions), or
 * "nothing changes" with the reason. The caller commits `next` conditionally on the process's
 * revision and only then performs the actions.
 */
export function transition(doc: ProcessDocument, input: ProcessInput, ctx: TransitionContext): TransitionResult {
  if (doc.workflow !== ctx.workflow.name || doc.workflowVersion !== ctx.workflow.version) {
    throw new Error(
      `Process ${doc._id} runs ${doc.workflow} v${doc.workflowVersion} but was given ${ctx.workflow.name} v${ctx.workflow.version}`,
    );
  }
  switch (input.type) {
    case 'claim':
      return claim(doc, ctx);
    case 'reply':
      return applyReply(doc, input.reply, ctx);
    case 'expire':
      if (!isExpired(doc, ctx.now)) return { applied: false, reason: `not expired: state ${doc.state}` };
      if (inGroup(doc)) return expireGroup(new ProcessDraft(doc, ctx), startStage, input.liveAgents);
      return recoverFailure(new ProcessDraft(doc, ctx), expiryReason(doc.steps[doc.currentStep] ?? { agent: '', operation: '' }, input.liveAgents));
    case 'resubmit':
      return repeatedCommand(doc, input) ?? resubmit(doc, input, ctx);
    case 'cancel':
      return repeatedCommand(doc, input) ?? cancel(doc, input, ctx);
    case 'undelivered':
      return undelivered(doc, input.attempt, input.error, ctx);
    case 'signal':
      return applySignal(doc, input, ctx);
  }
}
