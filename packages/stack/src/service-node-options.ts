/**
 * The V8 old-space limit every service runs with, in MB (decision 58). Not a budget the services
 * need: their live heap is about 25 MB. V8 grows the heap between collections by a factor of up
 * to 4 when its limit is large (the default here is several GB), and by at most 1.3 when the limit
 * is at most 128 MB × its pointer multiplier (256 MB on x64), so under load a service left
 * 70–95 MB of garbage uncollected and peaked near 200 MB resident; with this limit the peaks stay
 * under 140 MB. deploy/Dockerfile sets the same in the image's NODE_OPTIONS.
 * @default 256
 */
export const SERVICE_HEAP_LIMIT_MB = 256;

/**
 * The largest V8 semi-space every service runs with, in MB (decision 126): Node 22's default on
 * x64. Node 24 (V8 13) defaults to 64 MB, which makes the young generation (two semi-spaces and a
 * new large-object space of the same size) 192 MB instead of 48, so the whole heap could reach
 * 448 MB under the same old-space limit: over the 384 Mi container limit, and not the heap whose
 * peaks decision 58 measured.
 * @default 16
 */
export const SERVICE_SEMI_SPACE_MB = 16;

/**
 * NODE_OPTIONS for a service process: the heap limits first, then whatever the caller gives, so a
 * limit of its own wins (V8 takes the last one).
 */
export function serviceNodeOptions(given: string | undefined): string {
  const own = `--max-old-space-size=${SERVICE_HEAP_LIMIT_MB} --max-semi-space-size=${SERVICE_SEMI_SPACE_MB}`;
  return given?.trim() ? `${own} ${given.trim()}` : own;
}
