import { hostname } from 'node:os';

/** A name for this process that is unique across hosts: `<service>-<host>-<pid>`. */
export function defaultInstanceId(service: string): string {
  return `${service}-${hostname()}-${process.pid}`;
}
