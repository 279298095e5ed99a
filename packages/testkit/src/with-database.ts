/**
 * `url` with `db` as its path, keeping the host list and the query (`/?directConnection=true`),
 * so `client.db()` opens the test's own database. A regular expression rather than `URL`, because
 * a replica-set URL (`mongodb://a:1,b:2/`) is not a valid WHATWG URL.
 */
export function withDatabase(url: string, db: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)\/?[^?]*(\?.*)?$/.exec(url);
  if (!match)
    throw new Error(`Cannot add a database name to '${url}'; expected mongodb://host[:port][/db][?options]`);
  return `${match[1] ?? ''}/${db}${match[2] ?? ''}`;
}
