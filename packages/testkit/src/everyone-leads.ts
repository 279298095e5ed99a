/**
 * A lease every caller always holds. Tests use it to run two leaders at once and show that the
 * conditional writes alone keep the work single, as happens when a lease expires mid-round.
 */
export const everyoneLeads = {
  acquire: async (_name: string, _holder: string, _now: Date, _ttlMs: number): Promise<boolean> => true,
  release: async (_name: string, _holder: string): Promise<void> => undefined,
};
