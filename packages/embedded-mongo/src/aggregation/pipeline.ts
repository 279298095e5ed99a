import { isNumeric, isPlainObject, toNumber, type Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import { Projection } from '../query/projection';
import { compileFilter } from '../query/query-matcher';
import { Sorter } from '../query/sorter';
import { compileGroup } from './group-stage';

type Stage = (docs: Doc[]) => Doc[];

function positiveInteger(
  value: unknown,
  code: 'Location15958' | 'Location15956',
  message: string,
  allowZero: boolean,
): number {
  const n = isNumeric(value) ? toNumber(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || (!allowZero && n === 0)) throw new CommandError(code, message);
  return n;
}

function compileStage(stage: unknown): Stage {
  if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
    throw new CommandError(
      'Location40323',
      'A pipeline stage specification object must contain exactly one field.',
    );
  }
  const [name, spec] = Object.entries(stage)[0] as [string, unknown];
  switch (name) {
    case '$match': {
      if (!isPlainObject(spec))
        throw new CommandError('Location15959', 'the match filter must be an expression in an object');
      const matches = compileFilter(spec);
      return (docs) => docs.filter(matches);
    }
    case '$sort': {
      if (!isPlainObject(spec))
        throw new CommandError('Location15973', 'the $sort key specification must be an object');
      const sorter = Sorter.compile(spec);
      if (sorter === undefined)
        throw new CommandError('Location15976', '$sort stage must have at least one sort key');
      return (docs) => sorter.sort(docs);
    }
    case '$skip': {
      const n = positiveInteger(
        spec,
        'Location15956',
        'invalid argument to $skip stage: the skip must be at least 0',
        true,
      );
      return (docs) => docs.slice(n);
    }
    case '$limit': {
      const n = positiveInteger(spec, 'Location15958', 'the limit must be positive', false);
      return (docs) => docs.slice(0, n);
    }
    case '$project': {
      const projection = Projection.compile(spec);
      if (projection === undefined) {
        throw new CommandError(
          'Location51272',
          'Invalid $project :: caused by :: projection specification must have at least one field',
        );
      }
      return (docs) => docs.map((d) => projection.apply(d));
    }
    case '$group':
      return compileGroup(spec);
    default:
      throw new CommandError(
        'Location40324',
        `Unrecognized pipeline stage name: '${name}' (the embedded MongoDB server implements only $match, $sort, $skip, $limit, $project and $group; set MONGO_URL to a real MongoDB for more)`,
      );
  }
}

/**
 * Compiles an aggregation pipeline of the stages this server implements — `$match`, `$sort`,
 * `$skip`, `$limit`, `$project` (inclusion/exclusion) and `$group` (see {@link compileGroup}) —
 * validating every stage before any runs. Any other stage is MongoDB's code 40324.
 */
export function compilePipeline(pipeline: unknown): (docs: Doc[]) => Doc[] {
  if (!Array.isArray(pipeline))
    throw new CommandError('TypeMismatch', "'pipeline' option must be specified as an array");
  const stages = pipeline.map(compileStage);
  return (docs) => stages.reduce((acc, stage) => stage(acc), docs);
}
