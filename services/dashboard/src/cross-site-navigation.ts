import type { Request } from 'express';

const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

/**
 * Why a request was made by another site's page rather than by the person at the browser, or
 * `undefined` when nothing says so. A page anywhere can make the browser request
 * `/login?token=junk` (an `<img>`, a frame, a script's navigation); answering it as a sign-in would
 * let that page count failures against the operator's own address. Browsers say where a request
 * came from in `Sec-Fetch-Site` (`none` when the person typed, pasted or bookmarked the address,
 * `same-origin` from the dashboard's own page; `same-site` covers another port of the same host,
 * i.e. another dashboard); older ones in `Origin` or `Referer`. A request with none of them (curl, a
 * script) is not from a page.
 */
export function crossSiteSource(req: Request): string | undefined {
  const fetchSite = req.get('sec-fetch-site')?.trim().toLowerCase();
  if (fetchSite !== undefined && fetchSite !== '') {
    return fetchSite === 'none' || fetchSite === 'same-origin' ? undefined : `Sec-Fetch-Site: ${fetchSite}`;
  }
  const host = req.get('host');
  const origin = req.get('origin');
  if (origin !== undefined && hostOf(origin) !== host) return `Origin ${origin}`;
  const referer = req.get('referer');
  if (referer !== undefined && hostOf(referer) !== host) return 'a Referer of another site';
  return undefined;
}
