/**
 * The filter options `sas processes` and `sas bulk` share, as parsed from the command line. They
 * are the bulk filter's fields (packages/bulk), so a listing shows exactly what a bulk operation
 * with the same options would act on.
 */
export interface FilterOptions {
  state: string | undefined;
  workflow: string | undefined;
  failedStep: string | undefined;
  timeField: string | undefined;
  since: string | undefined;
  until: string | undefined;
  text: string | undefined;
}

/**
 * The filter the options name, not yet validated (the caller's schema says what is wrong, in the
 * options' own names): `state` as the caller resolves it, every other option only when given.
 */
export function rawFilter(options: FilterOptions, state: unknown): Record<string, unknown> {
  const raw: Record<string, unknown> = { state };
  if (options.workflow !== undefined) raw['workflow'] = options.workflow;
  if (options.failedStep !== undefined) raw['failedStep'] = options.failedStep;
  if (options.timeField !== undefined) raw['timeField'] = options.timeField;
  if (options.since !== undefined) raw['since'] = options.since;
  if (options.until !== undefined) raw['until'] = options.until;
  if (options.text !== undefined) raw['text'] = options.text;
  return raw;
}
