import { parseFaultSettings } from './fault-settings';
import { MalformedJson } from './malformed-json';
import type { RemoteSim } from './remote-sim';
import { RemoteOperations, isRemoteService } from './remote-operations';
import { answer, errorAnswer, type SimResponse } from './sim-response';

/** An HTTP request reduced to what the routes read; built by the server, or by a test directly. */
export interface SimRequest {
  method: string;
  /** Path and query, e.g. `/ledger?orderId=o-1`. */
  url: string;
  /** The `Idempotency-Key` header, undefined when absent. */
  idempotencyKey: string | undefined;
  /** The `Compensates-Idempotency-Key` header, undefined when absent (optional for older callers). */
  compensatesKey?: string | undefined;
  /** Parsed JSON body (`undefined` when empty, `MalformedJson` when unparseable). */
  body: unknown;
}

const knownServices = Object.keys(RemoteOperations).join(', ');

/**
 * Maps a request to the simulator and its answer. Pure, so every route is unit-tested without a
 * socket; the HTTP server only reads bodies, waits out latency and writes what this returns.
 */
export function routeRequest(sim: RemoteSim, request: SimRequest): SimResponse {
  const url = new URL(request.url, 'http://remote-sim.invalid');
  const segments = url.pathname.split('/').filter((s) => s !== '').map(safeDecode);
  const method = request.method.toUpperCase();
  const [first, second, third, ...rest] = segments;
  if (rest.length > 0) return notFound(method, url.pathname);

  if (first === 'services' && second !== undefined && third !== undefined) {
    if (method !== 'POST') return notAllowed(method, url.pathname, 'POST');
    const { idempotencyKey, compensatesKey, body } = request;
    return sim.call({ service: second, operation: third, idempotencyKey, compensatesKey, body });
  }
  if (first === 'healthz' && second === undefined) {
    return method === 'GET' ? answer(200, { status: 'ok' }) : notAllowed(method, url.pathname, 'GET');
  }
  if (first === 'admin' && second === 'release' && third !== undefined) {
    if (method !== 'POST') return notAllowed(method, url.pathname, 'POST');
    if (!isRemoteService(third)) return errorAnswer(404, `Unknown service '${third}'; use one of: ${knownServices}`);
    return answer(200, { service: third, released: sim.release(third) });
  }
  if (first === 'admin' && second === 'faults') {
    return third === undefined ? allFaults(sim, method, url.pathname) : serviceFaults(sim, method, url.pathname, third, request.body);
  }
  if (first === 'ledger' && second === undefined) return ledger(sim, method, url);
  if (first === 'ledger' && second !== undefined && third === undefined) {
    // A record store's delete by id: how a keyless remote's undo removes what a call made.
    if (method !== 'DELETE') return notAllowed(method, url.pathname, 'DELETE');
    const deleted = sim.deleteEffect(second);
    return deleted ? answer(200, { deleted }) : errorAnswer(404, `No effect '${second}' in the ledger (deleted already, or never made)`);
  }
  if (first === 'arrivals' && second === undefined) return arrivals(sim, method, url);
  if (first === 'stats' && second === undefined) {
    return method === 'GET' ? answer(200, sim.stats()) : notAllowed(method, url.pathname, 'GET');
  }
  return notFound(method, url.pathname);
}

function allFaults(sim: RemoteSim, method: string, path: string): SimResponse {
  if (method === 'GET') return answer(200, { faults: sim.faults() });
  if (method === 'DELETE') {
    sim.clearFaults();
    return answer(200, { faults: sim.faults() });
  }
  return notAllowed(method, path, 'GET, DELETE');
}

function serviceFaults(sim: RemoteSim, method: string, path: string, service: string, body: unknown): SimResponse {
  if (method !== 'PUT' && method !== 'DELETE') return notAllowed(method, path, 'PUT, DELETE');
  if (!isRemoteService(service)) return errorAnswer(404, `Unknown service '${service}'; use one of: ${knownServices}`);
  if (method === 'DELETE') {
    sim.clearFaults(service);
    return answer(200, { service, faults: sim.faults()[service] });
  }
  if (body instanceof MalformedJson) {
    return errorAnswer(400, `Fault body is not valid JSON (${body.reason}); send e.g. {"errorRate": 0.5}`);
  }
  const parsed = parseFaultSettings(service, body ?? {}, sim.now());
  if (!parsed.ok) return errorAnswer(400, `Invalid faults for ${service}: ${parsed.issues.join('; ')}`);
  sim.setFaults(service, parsed.faults);
  return answer(200, { service, faults: parsed.faults });
}

function ledger(sim: RemoteSim, method: string, url: URL): SimResponse {
  if (method === 'DELETE') {
    sim.resetLedger();
    return answer(200, { effects: [] });
  }
  if (method !== 'GET') return notAllowed(method, url.pathname, 'GET, DELETE');
  const service = url.searchParams.get('service') ?? undefined;
  const orderId = url.searchParams.get('orderId') ?? undefined;
  // What a `keyless` remote's caller looks an effect up by (the HTTP agent's lookup).
  const idempotencyKey = url.searchParams.get('idempotencyKey') ?? undefined;
  if (service !== undefined && !isRemoteService(service)) {
    return errorAnswer(400, `Unknown service '${service}' in the ledger filter; use one of: ${knownServices}`);
  }
  return answer(200, { effects: sim.ledger({ service, orderId, idempotencyKey }) });
}

function arrivals(sim: RemoteSim, method: string, url: URL): SimResponse {
  if (method !== 'GET') return notAllowed(method, url.pathname, 'GET');
  const service = url.searchParams.get('service') ?? undefined;
  const orderId = url.searchParams.get('orderId') ?? undefined;
  if (service !== undefined && !isRemoteService(service)) {
    return errorAnswer(400, `Unknown service '${service}' in the arrivals filter; use one of: ${knownServices}`);
  }
  return answer(200, { mode: sim.mode, arrivals: sim.arrivals({ service, orderId }) });
}

function notFound(method: string, path: string): SimResponse {
  return errorAnswer(
    404,
    `No route for ${method} ${path}; use POST /services/:service/:operation, /admin/faults[/:service], POST /admin/release/:service, /ledger, DELETE /ledger/:effectId, /arrivals, /stats or /healthz`,
  );
}

function notAllowed(method: string, path: string, allow: string): SimResponse {
  return errorAnswer(405, `${method} is not supported on ${path}; use ${allow}`, { Allow: allow });
}

// A malformed escape (`%E0%A4%A`) is kept as typed, so it yields a clean 404 rather than a crash.
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
