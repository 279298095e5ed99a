import { z } from 'zod';
import { defineWorkflow } from './define-workflow';
import { InvalidInputSchemaError } from './errors/invalid-input-schema-error';
import { payloadIssues } from './payload-issues';
import { MAX_INPUT_SCHEMA_BYTES } from './input-schema-limit';
import { loadWorkflows } from './load-workflows';
import { workflowIssues } from './workflow-issues';
import { WorkflowRegistry } from './workflow-registry';

const trip = {
  name: 'trip',
  version: 1,
  steps: [{ name: 'book-flight', agent: 'flights', operation: 'book', compensation: 'cancel', completeByMs: 5000, retry: {} }],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 60_000,
} as const;

const tripSchema = {
  type: 'object',
  required: ['amount', 'traveller'],
  properties: {
    amount: { type: 'number', minimum: 0 },
    traveller: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } },
    legs: { type: 'array', items: { type: 'string' } },
  },
  additionalProperties: false,
};

describe('input schemas', () => {
  it('accepts a payload that fits and names each bad field of one that does not, with its path', () => {
    const registry = new WorkflowRegistry([defineWorkflow({ ...trip, inputSchema: tripSchema })]);
    const workflow = registry.get('trip', 1);
    expect(payloadIssues(workflow, { amount: 120, traveller: { email: 'a@example.com' }, legs: ['LHR'] })).toEqual([]);
    expect(payloadIssues(workflow, { amount: '120', traveller: { email: 'nope' }, legs: ['LHR', 7], seat: '1A' })).toEqual([
      'payload.seat: is not allowed (the schema lists no such field)',
      'payload.amount: must be number',
      'payload.traveller.email: must match format "email"',
      'payload.legs[1]: must be string',
    ]);
    expect(payloadIssues(workflow, {})).toEqual(['payload.amount: is required', 'payload.traveller: is required']);
  });

  it('accepts every payload when the workflow has no schema', () => {
    const workflow = defineWorkflow(trip);
    expect(payloadIssues(workflow, { anything: ['goes'] })).toEqual([]);
  });

  it('derives the JSON Schema from a zod schema given to defineWorkflow', () => {
    const workflow = defineWorkflow({ ...trip, inputSchema: z.object({ amount: z.number().positive(), currency: z.enum(['EUR', 'USD']) }).strict() });
    expect(workflow.inputSchema).toMatchObject({ type: 'object', required: ['amount', 'currency'], additionalProperties: false });
    expect(payloadIssues(workflow, { amount: 10, currency: 'EUR' })).toEqual([]);
    expect(payloadIssues(workflow, { amount: -1, currency: 'GBP' })).toEqual([
      'payload.amount: must be > 0',
      'payload.currency: must be equal to one of the allowed values',
    ]);
  });

  it('refuses a schema that does not compile at load, naming the workflow and the keyword', () => {
    const bad = defineWorkflow({ ...trip, inputSchema: { type: 'object', requried: ['amount'] } });
    expect(() => new WorkflowRegistry([bad])).toThrow(InvalidInputSchemaError);
    expect(() => new WorkflowRegistry([bad])).toThrow(/Workflow 'trip' v1 has an invalid inputSchema: strict mode: unknown keyword: "requried"/);
    expect(() => loadWorkflows(JSON.stringify([{ ...trip, inputSchema: { type: 'nonsense' } }]))).toThrow(/Workflow 'trip' v1 has an invalid inputSchema/);
  });

  it('bounds the schema size, naming the field', () => {
    const huge = { type: 'object', description: 'x'.repeat(MAX_INPUT_SCHEMA_BYTES) };
    expect(workflowIssues({ ...trip, inputSchema: huge })).toEqual([
      expect.stringMatching(/^inputSchema: the schema is \d+ bytes; at most 32768 are allowed$/),
    ]);
  });

  it('compiles each version on its own, so two versions may share a $id', () => {
    const v1 = defineWorkflow({ ...trip, inputSchema: { $id: 'trip-input', type: 'object', required: ['amount'] } });
    const v2 = defineWorkflow({ ...trip, version: 2, inputSchema: { $id: 'trip-input', type: 'object', required: ['amount', 'hotel'] } });
    const registry = new WorkflowRegistry([v1, v2]);
    expect(payloadIssues(registry.get('trip', 1), { amount: 1 })).toEqual([]);
    expect(payloadIssues(registry.get('trip', 2), { amount: 1 })).toEqual(['payload.hotel: is required']);
  });

  it('lists at most 20 issues of a payload wrong wholesale', () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: 'number' }]));
    const workflow = defineWorkflow({ ...trip, inputSchema: { type: 'object', properties } });
    const issues = payloadIssues(workflow, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, 'x'])));
    expect(issues).toHaveLength(21);
    expect(issues[20]).toBe('… and 10 more');
  });
});
