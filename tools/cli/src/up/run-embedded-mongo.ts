import { locateEmbeddedMongoCli } from '@sas/stack';

/** Usage of `sas embedded-mongo`, part of the CLI's help. */
export const EMBEDDED_MONGO_USAGE = `  embedded-mongo [--port N] [--data-dir DIR] [--sync normal|full] [--help] ...
        run the embedded MongoDB in this process (sas up starts one for you); --help lists its options`;

/**
 * `sas embedded-mongo ARGS`: the embedded MongoDB's own command (`@sas/embedded-mongo`'s CLI), from
 * an installed sas, so no page needs the package's path inside node_modules. Its arguments are its
 * own: they reach it as if it had been started alone. The server exits the process when it stops.
 */
export async function runEmbeddedMongo(args: readonly string[]): Promise<void> {
  const cli = locateEmbeddedMongoCli();
  // The CLI reads process.argv from index 2, as when it is run as `node cli.js ARGS`.
  process.argv = [process.argv[0] as string, cli, ...args];
  await import(cli);
}
