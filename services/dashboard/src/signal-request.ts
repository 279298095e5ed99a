import { JsonObject, SignalId, SignalName, stepResultProblem } from '@sas/contracts';
import { z } from 'zod';

/**
 * Body of `POST /api/processes/:id/signal`: `{"name":"approval","data":{"approved":true}}`. `data`
 * becomes the signal step's result (null when left out); `signalId` makes a repeat count once
 * (derived from the process, name and data when left out).
 */
export const SignalRequestBody = z
  .object(
    {
      name: SignalName,
      data: JsonObject.nullable().optional(),
      signalId: SignalId.optional(),
    },
    { invalid_type_error: 'the body must be a JSON object such as {"name":"approval","data":{"approved":true}}' },
  )
  .strict('unknown body field; only name, data and signalId are accepted')
  // Checked here, before anything walks the data (the default signal id hashes it recursively):
  // too deep a nesting is the same 400 with or without a signalId, never a stack overflow.
  .superRefine((body, ctx) => {
    const problem = body.data == null ? null : stepResultProblem(body.data);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['data'], message: `${problem.replace('the result', 'the data')}; send a reference (an id, a URL) instead` });
  });
export type SignalRequestBody = z.infer<typeof SignalRequestBody>;
