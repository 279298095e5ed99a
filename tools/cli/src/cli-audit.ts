import type { AuditEntry, AuditOutcome } from '@sas/contracts';
import { DEFAULT_AUDIT_RETENTION_MS, MongoAuditLog, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';

/** What a direct-path write says about itself for its audit entry. */
export interface CliAuditNote {
  /** As the dashboard names it: `process.cancel`, `bulk.resubmit`, `agent.pause`, … */
  action: string;
  /** The `cli:<user>@<host>` principal. */
  principal: string;
  /** The command line's command, e.g. `cancel`: the entry's route is `cli sas cancel`. */
  command: string;
  target?: string | undefined;
  orderId?: string | undefined;
  outcome: AuditOutcome;
  /** The CLI's exit code (the field holds the HTTP status for the dashboard's entries). */
  exitCode: number;
  detail?: string | undefined;
}

/** Keeps a text field inside the entry's bounds, as the dashboard's trail does. */
const cut = (text: string | undefined, max: number): string | undefined => (text === undefined ? undefined : text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The audit entry of a direct-path write: address `local`, route `cli sas <command>`. */
export function cliAuditEntry(note: CliAuditNote, at: Date, retentionMs = DEFAULT_AUDIT_RETENTION_MS): AuditEntry {
  const target = cut(note.target, 300);
  const orderId = cut(note.orderId, 200);
  const detail = cut(note.detail, 500);
  return {
    at,
    action: note.action,
    principal: cut(note.principal, 200)!,
    address: 'local',
    route: `cli sas ${note.command}`,
    ...(target !== undefined ? { target } : {}),
    ...(orderId !== undefined ? { orderId } : {}),
    outcome: note.outcome,
    status: note.exitCode,
    ...(detail !== undefined ? { detail } : {}),
    expiresAt: new Date(at.getTime() + retentionMs),
  };
}

/**
 * Appends a direct-path write's entry to the same `audit_log` the dashboard writes. Resolves with
 * a line to print when it could not (the write itself stands: it already happened).
 */
export async function recordCliAudit(env: CliEnv, note: CliAuditNote): Promise<string | undefined> {
  try {
    const connection = await connectStore(env.mongoUrl, env.mongoDb);
    try {
      const log = new MongoAuditLog(connection.db);
      await log.ensureIndexes();
      await log.record(cliAuditEntry(note, new Date()));
    } finally {
      await connection.close();
    }
    return undefined;
  } catch (e) {
    return `warning: the write was not recorded in the audit log (${e instanceof Error ? e.message : String(e)}); tell whoever reviews it what you did`;
  }
}
