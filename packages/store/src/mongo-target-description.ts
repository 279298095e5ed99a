/**
 * Where a MongoDB URL points, for the start-up log, without credentials: its hosts (or the SRV
 * name) and whether it is an SRV URL.
 */
export function describeMongoTarget(url: string): { mongo: string; srv: boolean } {
  const srv = url.startsWith('mongodb+srv://');
  const rest = url.replace(/^mongodb(\+srv)?:\/\//, '');
  const end = rest.search(/[/?]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  return { mongo: hosts, srv };
}
