import { JsonObject, SignalId, SignalName } from '@sas/contracts';
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
  .strict('unknown body field; only name, data and signalId are accepted');
export type SignalRequestBody = z.infer<typeof SignalRequestBody>;
