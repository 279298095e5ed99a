import type { Alert, StatusEvent } from '@sas/contracts';
import type { Action } from '../action';

// Picks one kind of action out of a transition's list, so a test can assert exactly those and
// nothing else of that kind (an extra status event or alert fails the `toEqual`).

/** The status names told to the application, in order. */
export const statuses = (actions: readonly Action[]): string[] =>
  actions.flatMap((a) => (a.type === 'status' ? [a.event.status] : []));

/** The status events told to the application, whole, in order. */
export const statusEvents = (actions: readonly Action[]): StatusEvent[] =>
  actions.flatMap((a) => (a.type === 'status' ? [a.event] : []));

/** The alerts raised for an operator, in order. */
export const alerts = (actions: readonly Action[]): Alert[] =>
  actions.flatMap((a) => (a.type === 'alert' ? [a.alert] : []));
