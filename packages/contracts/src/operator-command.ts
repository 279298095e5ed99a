import { z } from 'zod';
import { ReplyTo } from './common';

/** What an operator sends to `operator.commands`. */
export const OperatorCommand = z.object({
  schemaVersion: z.literal(1),
  command: z.enum(['resubmit', 'cancel']),
  processId: z.string().min(1),
  /** Who asked, for the process history. */
  by: z.string().min(1).default('operator'),
  /** Why, for the process history. Optional: commands sent before it existed simply have none. */
  reason: z.string().min(1).max(500).optional(),
  /** Queue that receives the command's result. */
  replyTo: ReplyTo.optional(),
  /**
   * Identifies the command across redeliveries, so a repeat answers what the first one did. The
   * scheduler uses the message's job id when absent (commands sent before it existed).
   */
  commandId: z.string().min(1).max(200).optional(),
});
export type OperatorCommand = z.infer<typeof OperatorCommand>;

/** Answer to an operator command. */
export const OperatorCommandResult = z.object({
  schemaVersion: z.literal(1),
  processId: z.string(),
  command: z.enum(['resubmit', 'cancel']),
  ok: z.boolean(),
  message: z.string(),
});
export type OperatorCommandResult = z.infer<typeof OperatorCommandResult>;
