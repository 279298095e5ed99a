import { WorkflowNotDeployedError } from './errors/workflow-not-deployed-error';
import { inputValidatorOf } from './payload-issues';
import { WorkflowDefinition } from './workflow-definition';

/**
 * Every workflow version a deployment knows. Old versions stay registered while processes that
 * started on them may still be running, so a deploy never changes in-flight work.
 */
export class WorkflowRegistry {
  private readonly byName = new Map<string, Map<number, WorkflowDefinition>>();

  constructor(definitions: readonly WorkflowDefinition[] = []) {
    for (const d of definitions) this.register(d);
  }

  /**
   * Validates and adds a definition, compiling its `inputSchema` (once: {@link find} returns the
   * same object, whose validator is kept); a second definition of the same name and version is a bug.
   *
   * @throws InvalidInputSchemaError naming the workflow when its input schema does not compile.
   */
  register(definition: WorkflowDefinition): this {
    const parsed = WorkflowDefinition.parse(definition);
    inputValidatorOf(parsed);
    const versions = this.byName.get(parsed.name) ?? new Map<number, WorkflowDefinition>();
    if (versions.has(parsed.version)) {
      throw new Error(`Workflow ${parsed.name} v${parsed.version} is registered twice; publish changes as a new version`);
    }
    versions.set(parsed.version, parsed);
    this.byName.set(parsed.name, versions);
    return this;
  }

  /** The given version, or the newest when `version` is absent; undefined when unknown. */
  find(name: string, version?: number): WorkflowDefinition | undefined {
    const versions = this.byName.get(name);
    if (!versions) return undefined;
    if (version !== undefined) return versions.get(version);
    return versions.get(Math.max(...versions.keys()));
  }

  /** Like {@link find} but throws for an unknown workflow: only for processes already accepted. */
  get(name: string, version: number): WorkflowDefinition {
    const found = this.find(name, version);
    if (!found) throw new WorkflowNotDeployedError(name, version);
    return found;
  }

  /** Every registered definition, each version on its own, in registration order. */
  definitions(): WorkflowDefinition[] {
    return [...this.byName.values()].flatMap((v) => [...v.values()]);
  }

  /** `name@version` of everything registered, for error messages and the dashboard. */
  list(): string[] {
    return [...this.byName.values()].flatMap((v) => [...v.values()].map((d) => `${d.name}@${d.version}`));
  }
}
