import { z } from 'zod';

/** An order id chosen by the submitting application; unique across the system. */
export const OrderId = z
  .string()
  .min(1, 'orderId must not be empty')
  .max(200, 'orderId must be at most 200 characters');

/** A name of a queue the application listens on for status events. */
export const ReplyTo = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,200}$/, 'replyTo must be a queue name of letters, digits, . _ - (no :)');

/** Milliseconds since the Unix epoch; messages carry times as numbers so JSON keeps them exact. */
export const EpochMs = z.number().int().nonnegative();

/** Free-form JSON object carried through the system (the order, a step result). */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;
