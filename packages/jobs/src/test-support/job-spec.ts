/** A valid recurring job specification that submits an order; override any field. */
export function jobSpec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    jobSpecificationKey: 'nightly-report',
    jobRequestor: 'reporting',
    schedulingSpecification: '0 2 * * *',
    triggerCommand: { type: 'submit', workflow: 'order-fulfilment', payload: { sku: 'report' } },
    triggerIdentifier: 'nightly',
    failureCommand: { queue: 'reporting.failures', message: { alert: 'nightly report did not start' } },
    failureIdentifier: 'nightly-failed',
    ...overrides,
  };
  for (const [k, v] of Object.entries(spec)) if (v === undefined) delete spec[k];
  return spec;
}
