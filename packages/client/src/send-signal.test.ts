import { InvalidSignalError } from './errors/invalid-signal-error';
import { sendSignal } from './send-signal';

// Validation comes before any connection: this Redis URL is never dialled.
const nowhere = { redisUrl: 'redis://127.0.0.1:1', prefix: 'sas' };

describe('sendSignal', () => {
  it('refuses a name no signal step could wait for, naming the problem, before sending anything', async () => {
    const sent = sendSignal(nowhere, { orderId: 'o-1' }, 'Approved', null);
    await expect(sent).rejects.toThrow(InvalidSignalError);
    await expect(sent).rejects.toThrow("Signal 'Approved' is invalid and was not sent: name: name must be lower-case words joined by - (as the signal step names it), e.g. approved");
  });

  it('refuses data larger than a step result may be', async () => {
    const sent = sendSignal(nowhere, { orderId: 'o-1' }, 'approved', { blob: 'x'.repeat(20_000) });
    await expect(sent).rejects.toThrow(/data: the data is \d+ bytes as JSON, more than the 16384 a step result may carry; send a reference/);
  });

  it.each([['without', undefined], ['with', 'sig-1']])('refuses data nested far too deep the same way %s a signalId, never with a stack overflow', async (_with, signalId) => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { d: deep };
    const sent = sendSignal(nowhere, { orderId: 'o-1' }, 'approved', deep, signalId === undefined ? {} : { signalId });
    await expect(sent).rejects.toThrow(InvalidSignalError);
    await expect(sent).rejects.toThrow(/data: the data nests more than 32 levels of objects and arrays; send a reference/);
  });
});
