import { compilePayloadSchema, type PayloadCheck } from '@sas/contracts';

/** What the client needs of a workflow definition to check a payload before sending it. */
export interface KnownWorkflow {
  name: string;
  version: number;
  /** The workflow's `inputSchema` (JSON Schema); a workflow without one accepts every payload. */
  inputSchema?: Record<string, unknown> | undefined;
}

/**
 * The input schemas of the workflows an application gave its client, compiled once, so an order
 * whose payload the submission service would reject is refused before it is sent. An order for a
 * workflow the client was not given is not checked here: the submission service still checks it.
 */
export class PayloadChecks {
  private readonly byName = new Map<string, Map<number, PayloadCheck>>();

  /** @throws Error naming the workflow when its schema does not compile. */
  constructor(workflows: readonly KnownWorkflow[]) {
    for (const w of workflows) {
      let check: PayloadCheck = () => [];
      try {
        if (w.inputSchema !== undefined) check = compilePayloadSchema(w.inputSchema);
      } catch (e) {
        throw new Error(`workflows: '${w.name}' v${w.version} has an invalid inputSchema: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      const versions = this.byName.get(w.name) ?? new Map<number, PayloadCheck>();
      versions.set(w.version, check);
      this.byName.set(w.name, versions);
    }
  }

  /**
   * Each bad field of `payload` for the given workflow version, or its newest known version when
   * the order names none (as the submission service picks); empty when it fits or is not known.
   */
  issues(workflow: string, version: number | undefined, payload: unknown): string[] {
    const versions = this.byName.get(workflow);
    if (!versions) return [];
    const check = versions.get(version ?? Math.max(...versions.keys()));
    return check ? check(payload) : [];
  }
}
