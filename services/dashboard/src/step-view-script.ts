/**
 * How the page shows a process's steps, as plain browser JavaScript (an expression the page script
 * binds to `stepView`): the members of one parallel group become one entry shown side by side, a
 * skipped step keeps its place with its `Skipped` state, and a wait or signal step says what it
 * waits for and until when. Data only (no DOM), so a unit test runs it as it is.
 */
export const STEP_VIEW_SCRIPT = String.raw`(() => {
  const at = (v) => (v ? String(v).replace('T', ' ').replace('Z', '') : '–');
  return {
    entries(steps) {
      const out = [];
      steps.forEach((step, i) => {
        const last = out[out.length - 1];
        if (step.group && last && last.group === step.group) last.members.push({ n: i + 1, step });
        else out.push({ group: step.group || null, members: [{ n: i + 1, step }] });
      });
      return out;
    },
    what(step, process) {
      // From a cancel until the undo begins the record is still Running (in documents written before decision 127, for good): it no longer waits.
      const waiting = step.state === 'Running' && process.mode === 'forward' && !['Processed', 'Compensated', 'Canceled'].includes(process.state);
      if (step.kind === 'wait') return waiting ? 'timer: waiting until ' + at(step.waitUntil) : 'timer';
      if (step.kind === 'signal') {
        return waiting ? 'signal ' + step.signal + ': waiting, times out at ' + at(step.waitUntil) : 'signal ' + step.signal;
      }
      return step.agent + '.' + step.operation;
    },
  };
})()`;
