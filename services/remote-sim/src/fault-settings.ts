import { z } from 'zod';
import { describeIssues } from './describe-issues';
import { isOperationOf, type RemoteServiceName } from './remote-operations';

/** Longest injectable latency; longer waits are what `hang` is for. @default 3_600_000 (one hour) */
export const maxLatencyMs = 3_600_000;

/**
 * Body of `PUT /admin/faults/:service`. Every field is optional; unknown fields are rejected so a
 * typo (`errorrate`) fails loudly instead of silently injecting nothing.
 */
export const FaultSettingsInput = z
  .object({
    /** Share of calls answered 503 before any effect is applied. */
    errorRate: z.number().min(0).max(1).optional(),
    /** Share of calls whose effect is applied but whose answer is a 503 (the reply is "lost"). */
    lostReplyRate: z.number().min(0).max(1).optional(),
    /** Delay before every answer of the service. */
    latencyMs: z.number().int().min(0).max(maxLatencyMs).optional(),
    /** Never answer: hold each request until the client aborts or the server closes. */
    hang: z.boolean().optional(),
    /**
     * Operations whose successful answers are held, their effect applied, until
     * `POST /admin/release/:service` (or the client gives up): a test decides when the caller hears back.
     */
    holdOperations: z.array(z.string().min(1)).optional(),
    /** 503 with `Retry-After` from now for this long. */
    outageMs: z.number().int().min(0).optional(),
    /** 503 with `Retry-After` until this instant (epoch ms). */
    outageUntil: z.number().int().min(0).optional(),
    /** Orders whose forward operations answer 422 (compensations still succeed). */
    permanentFailOrders: z.array(z.string().min(1)).optional(),
    /** Operations that answer 422 for every order. */
    permanentFailOperations: z.array(z.string().min(1)).optional(),
  })
  .strict()
  .refine((f) => f.outageMs === undefined || f.outageUntil === undefined, {
    message: 'give outageMs or outageUntil, not both',
  });
export type FaultSettingsInput = z.infer<typeof FaultSettingsInput>;

/** The faults in force for one service, every field explicit (what `GET /admin/faults` shows). */
export interface ServiceFaults {
  errorRate: number;
  lostReplyRate: number;
  latencyMs: number;
  hang: boolean;
  /** Operations whose successful answers wait for `POST /admin/release/:service`. */
  holdOperations: string[];
  /** End of the outage window (epoch ms), or null when there is none. */
  outageUntil: number | null;
  permanentFailOrders: string[];
  permanentFailOperations: string[];
}

/** A service that behaves perfectly. */
export function noFaults(): ServiceFaults {
  return {
    errorRate: 0,
    lostReplyRate: 0,
    latencyMs: 0,
    hang: false,
    holdOperations: [],
    outageUntil: null,
    permanentFailOrders: [],
    permanentFailOperations: [],
  };
}

/** Result of {@link parseFaultSettings}: the settings, or the reasons they were refused. */
export type ParsedFaults = { ok: true; faults: ServiceFaults } | { ok: false; issues: string[] };

/**
 * Validates a fault body for one service and turns it into explicit settings. `outageMs` becomes an
 * absolute `outageUntil` at `now`, so the window does not move when the settings are read later.
 */
export function parseFaultSettings(service: RemoteServiceName, body: unknown, now: number): ParsedFaults {
  const parsed = FaultSettingsInput.safeParse(body);
  if (!parsed.success) return { ok: false, issues: describeIssues(parsed.error) };
  const input = parsed.data;
  for (const field of ['permanentFailOperations', 'holdOperations'] as const) {
    const unknownOps = (input[field] ?? []).filter((op) => !isOperationOf(service, op));
    if (unknownOps.length > 0) {
      return { ok: false, issues: [`${field}: ${service} has no operation ${unknownOps.map((o) => `'${o}'`).join(', ')}`] };
    }
  }
  const base = noFaults();
  let outageUntil: number | null = null;
  if (input.outageMs !== undefined) outageUntil = now + input.outageMs;
  else if (input.outageUntil !== undefined) outageUntil = input.outageUntil;
  return {
    ok: true,
    faults: {
      errorRate: input.errorRate ?? base.errorRate,
      lostReplyRate: input.lostReplyRate ?? base.lostReplyRate,
      latencyMs: input.latencyMs ?? base.latencyMs,
      hang: input.hang ?? base.hang,
      holdOperations: [...(input.holdOperations ?? [])],
      outageUntil,
      permanentFailOrders: [...(input.permanentFailOrders ?? [])],
      permanentFailOperations: [...(input.permanentFailOperations ?? [])],
    },
  };
}
