/**
 * How a CLI write reaches the system. `api`: through the dashboard's API with an operator token,
 * audited there under the token's principal (the attributable path). `direct`: straight to
 * Redis/MongoDB with the services' credentials, audited by the CLI itself under a self-reported
 * `cli:<user>@<host>` principal.
 */
export type OperatorPath = { kind: 'api'; baseUrl: string; token: string } | { kind: 'direct'; principal: string };

/** Who runs the CLI, as the operating system says (`os.userInfo().username`, `os.hostname()`). */
export interface CliIdentity {
  user: string;
  host: string;
}

/** The principal of a direct-path write: `cli:<user>@<host>`, self-reported. */
export function cliPrincipal(identity: CliIdentity): string {
  return `cli:${identity.user}@${identity.host}`;
}

/**
 * Chooses the path of a write: the API when `SAS_DASHBOARD_URL` and `SAS_DASHBOARD_TOKEN` are both
 * set, the direct path when neither is. Throws with what to do when only one is set (a half
 * configuration would silently fall back to the unattributable path), when the URL is not http(s),
 * and when `--by` is given: the name in the history is never typed, it is the token's principal
 * (API) or the OS user and host (direct), so a typed name could not claim to be someone else.
 */
export function chooseOperatorPath(env: NodeJS.ProcessEnv, by: string | undefined, identity: CliIdentity): OperatorPath {
  if (by !== undefined) {
    throw new Error(
      `--by is no longer accepted: the history names who acted, and that is not typed: the dashboard token's principal (SAS_DASHBOARD_URL and SAS_DASHBOARD_TOKEN set) or ${cliPrincipal(identity)} (direct to Redis/MongoDB); drop --by, and put anything else to say into --reason`,
    );
  }
  const url = env['SAS_DASHBOARD_URL'];
  const token = env['SAS_DASHBOARD_TOKEN'];
  if (url && token) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`SAS_DASHBOARD_URL is not a URL ('${url}'); give the dashboard's base URL, e.g. https://sas-dashboard.example.com`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`SAS_DASHBOARD_URL must be http or https (got '${url}')`);
    return { kind: 'api', baseUrl: url.replace(/\/+$/, ''), token };
  }
  if (url || token) {
    throw new Error(
      `${url ? 'SAS_DASHBOARD_URL is set but SAS_DASHBOARD_TOKEN is not' : 'SAS_DASHBOARD_TOKEN is set but SAS_DASHBOARD_URL is not'}: set both to write through the dashboard's API (audited under the token's principal), or neither to write straight to Redis/MongoDB`,
    );
  }
  return { kind: 'direct', principal: cliPrincipal(identity) };
}
