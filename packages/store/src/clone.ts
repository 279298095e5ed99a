import rfdc from 'rfdc';

/**
 * A deep copy of a stored value: plain objects, arrays, Dates and scalars, which is all a process
 * document or a history entry holds. The in-memory stores copy every value in and out (nobody may
 * change stored state except through a write), several times per transition, so this sits on the
 * simulation's hot path: rfdc copies such values several times faster than `structuredClone`.
 */
export const clone: <T>(value: T) => T = rfdc({ proto: false, circles: false });
