import { z } from 'zod';
import { CommonConfig } from '@sas/runtime';
import { DashboardTokenEntry } from './dashboard-credentials';
import { DEFAULT_AUDIT_RETENTION_MS } from './audit-trail';
import { DEFAULT_AUTH_LIMITS } from './auth-limits';
import { DEFAULT_SESSION_TTL_MS } from './login-cookie';

/** An agent name becomes part of a queue name (`agent.<name>.requests`), so it has the same alphabet. */
const AgentName = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'each agent name must be letters, digits, _ or - (a comma list: inventory,payment)');

/**
 * Environment of the dashboard service. `PROBE_PORT` from the common fields is not used: the
 * dashboard serves `/healthz`, `/readyz` and `/metrics` on its own port.
 */
export const DashboardConfig = z
  .object({
  ...CommonConfig,
  /** HTTP port of the page, the API and bull-board; 0 picks a free port (tests, the local launcher). */
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** Address to listen on: loopback by default (the API can cancel orders); 0.0.0.0 in containers. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Agents whose request queues bull-board and the summary show, as a comma list. */
  AGENTS: z
    .string()
    .default('inventory,payment,shipping')
    .transform((list) => list.split(',').map((a) => a.trim()).filter((a) => a.length > 0))
    .pipe(z.array(AgentName).min(1, 'AGENTS must name at least one agent, e.g. inventory,payment,shipping')),
  /** How long resubmit and cancel wait for a scheduler's answer before answering 504. */
  COMMAND_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /**
   * Consume the `alerts` queue and store each alert in the `alerts` collection; `false` when an
   * application consumes the queue instead (each alert goes to only one consumer).
   */
  ALERTS_CONSUME: z
    .enum(['true', 'false'], { message: "ALERTS_CONSUME must be 'true' or 'false'" })
    .default('true')
    .transform((v) => v === 'true'),
  /** How long a stored alert stays before MongoDB's TTL removes it; 30 days. Applies to alerts stored from then on. */
  ALERTS_RETENTION_MS: z.coerce.number().int().positive().default(30 * 24 * 60 * 60 * 1000),
  /**
   * Who may use the dashboard: a comma list of `role:token` or `role:name:token`, role `viewer`
   * (read only) or `operator` (also resubmit, cancel, bulk, pause and resume); each token must
   * carry at least 128 bits (32 hex or 22 base64url characters from a random source, e.g.
   * `openssl rand -base64 32`; placeholders and word-built tokens are refused, see `tokenStrength`).
   * Required unless `DASHBOARD_AUTH=off`.
   */
  DASHBOARD_TOKENS: z
    .string()
    .default('')
    .transform((list) => list.split(',').map((t) => t.trim()).filter((t) => t.length > 0))
    .pipe(z.array(DashboardTokenEntry)),
  /**
   * How long a browser stays signed in after `/login`: the login cookie's `Max-Age`, and the
   * server refuses the cookie after it (the times are in the cookie, under its MAC). Lowering it
   * also cuts sessions already issued. At least one second; 12 hours.
   */
  DASHBOARD_SESSION_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000, 'DASHBOARD_SESSION_TTL_MS must be at least 1000 (one second); the default is 43200000 (12 h)')
    .default(DEFAULT_SESSION_TTL_MS),
  /**
   * Failed credentials (wrong bearer token, wrong login link, forged cookie) allowed per client
   * address and per token prefix within `DASHBOARD_AUTH_WINDOW_MS`; past it the address (or
   * prefix) is answered 429 for `DASHBOARD_AUTH_BLOCK_MS`. Counted in Redis, shared by replicas.
   */
  DASHBOARD_AUTH_FAILURES: z.coerce.number().int().min(1, 'DASHBOARD_AUTH_FAILURES must be at least 1; the default is 20').default(DEFAULT_AUTH_LIMITS.failures),
  /** The window `DASHBOARD_AUTH_FAILURES` counts over; 10 minutes. */
  DASHBOARD_AUTH_WINDOW_MS: z.coerce.number().int().min(1000, 'DASHBOARD_AUTH_WINDOW_MS must be at least 1000 (one second); the default is 600000 (10 min)').default(DEFAULT_AUTH_LIMITS.windowMs),
  /** How long an address or token prefix past the limit is refused; 15 minutes. */
  DASHBOARD_AUTH_BLOCK_MS: z.coerce.number().int().min(1000, 'DASHBOARD_AUTH_BLOCK_MS must be at least 1000 (one second); the default is 900000 (15 min)').default(DEFAULT_AUTH_LIMITS.blockMs),
  /**
   * Which proxies in front of the dashboard are believed about the client (`X-Forwarded-For`) and
   * the scheme (`X-Forwarded-Proto`: the login cookie gets `Secure` behind a TLS proxy): express's
   * `trust proxy`, e.g. `loopback`, `10.0.0.0/8,172.16.0.0/12`, or a hop count `1`. Empty (the
   * default) believes no proxy: the address is the TCP peer's and the scheme the connection's.
   */
  DASHBOARD_TRUST_PROXY: z
    .string()
    .default('')
    .transform((v): boolean | number | string => (v.trim() === '' || v.trim() === 'false' ? false : /^\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim())),
  /**
   * Host names the dashboard answers to besides `localhost`, `127.0.0.1`, `[::1]`, `HOST` and IP
   * addresses, as a comma list (`dashboard,sas.example.com`): the name in the address a browser,
   * the CLI (`SAS_DASHBOARD_URL`) or a scraper uses. Any other `Host` is answered 421, so a
   * DNS-rebinding page cannot use the dashboard. Empty by default.
   */
  DASHBOARD_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((list) => list.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h.length > 0))
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])$/,
            'each DASHBOARD_ALLOWED_HOSTS entry must be a host name without scheme or port, e.g. dashboard,sas.example.com',
          ),
      ),
    ),
  /**
   * Names this dashboard's login cookie `sas_dashboard_<name>`: needed only when several dashboards
   * share one host name and port (one ingress host, several paths). Unset, the cookie is named
   * after the port the browser used (`sas_dashboard_4000`), which tells apart dashboards on one host.
   */
  DASHBOARD_INSTANCE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'DASHBOARD_INSTANCE_NAME must be 1-40 letters, digits, _ or -, e.g. prod')
    .optional(),
  /** How long an audit entry is kept before MongoDB's TTL removes it; 90 days. Applies to entries recorded from then on. */
  AUDIT_RETENTION_MS: z.coerce.number().int().min(60_000, 'AUDIT_RETENTION_MS must be at least 60000 (one minute); the default is 7776000000 (90 days)').default(DEFAULT_AUDIT_RETENTION_MS),
  /** `off` runs without any login (anyone reaching the port may cancel orders); only said explicitly. */
  DASHBOARD_AUTH: z.enum(['on', 'off'], { message: "DASHBOARD_AUTH must be 'on' or 'off'" }).default('on'),
})
  .superRefine((c, ctx) => {
    if (c.DASHBOARD_AUTH === 'on' && c.DASHBOARD_TOKENS.length === 0) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['DASHBOARD_TOKENS'],
        message:
          'no dashboard tokens are configured; set DASHBOARD_TOKENS=operator:<token>[,viewer:<token>] (each token of at least 128 bits, e.g. from openssl rand -base64 32), or DASHBOARD_AUTH=off to serve without login on a trusted network',
      });
    }
    if (c.DASHBOARD_AUTH === 'off' && c.DASHBOARD_TOKENS.length > 0) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['DASHBOARD_AUTH'], message: 'DASHBOARD_AUTH=off but DASHBOARD_TOKENS is set; unset one of them' });
    }
  });
export type DashboardConfig = z.infer<typeof DashboardConfig>;
