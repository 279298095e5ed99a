/** One answer of the dashboard's API: its status and its JSON body (`{}` when it had none). */
export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The request the CLI sends: a bearer token and JSON, and no Origin or Referer, which the
 * dashboard's same-origin guard lets through as a tool's request (a browser cannot send a token).
 */
export function apiRequestInit(token: string, method: 'GET' | 'POST', body?: unknown): RequestInit {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (method === 'GET') return { method, headers };
  return { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) };
}

/**
 * What a refused answer means for the operator: the API's own message, plus what to do for the
 * answers that are about the token (401, 403) or its rate (429).
 */
export function explainApiRefusal(answer: ApiAnswer, baseUrl: string): string {
  const said = typeof answer.body['error'] === 'string' ? answer.body['error'] : `HTTP ${answer.status}`;
  switch (answer.status) {
    case 401:
      return `${said} (401: the dashboard at ${baseUrl} does not accept SAS_DASHBOARD_TOKEN; check it against the dashboard's DASHBOARD_TOKENS, or ask for a new operator token)`;
    case 403:
      return `${said} (403: the token is not allowed this write; an operator token is needed, not a viewer's)`;
    case 429:
      return `${said} (429: too many failed sign-ins from here; wait a minute and check SAS_DASHBOARD_TOKEN before trying again)`;
    default:
      return said;
  }
}

/** The dashboard's JSON API as the CLI calls it: `SAS_DASHBOARD_URL` with `SAS_DASHBOARD_TOKEN`. */
export class DashboardApi {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** Sends one request; resolves with any HTTP answer, rejects (with what to check) when the dashboard cannot be reached. */
  async send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, { ...apiRequestInit(this.token, method, body), signal: AbortSignal.timeout(60_000) });
    } catch (e) {
      const why = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      throw new Error(`cannot reach the dashboard at ${this.baseUrl} (${why}); check SAS_DASHBOARD_URL, or unset SAS_DASHBOARD_URL and SAS_DASHBOARD_TOKEN to write straight to Redis/MongoDB`);
    }
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = { error: `HTTP ${res.status} with a body that is not JSON (is SAS_DASHBOARD_URL the dashboard's base URL?)` };
    }
    return { status: res.status, body: typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {} };
  }
}
