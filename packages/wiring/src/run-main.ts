/**
 * Runs a service's async `main`, turning a start-up failure into one readable line on stderr and
 * exit code 1 (the logger may not exist yet when configuration is wrong).
 */
export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    process.stderr.write(`${service} failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
