import { PassThrough } from 'node:stream';
import { endQuietlyOnClosedPipe } from './closed-pipe';

const epipe = (): NodeJS.ErrnoException => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

describe('endQuietlyOnClosedPipe', () => {
  it('stops once, quietly, however many writes meet the closed pipe on either stream', () => {
    const [stdout, stderr] = [new PassThrough(), new PassThrough()];
    const stop = jest.fn();
    endQuietlyOnClosedPipe([stdout, stderr], stop);
    stdout.emit('error', epipe());
    stdout.emit('error', epipe());
    stderr.emit('error', epipe());
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it('lets any other stream error through', () => {
    const stdout = new PassThrough();
    const stop = jest.fn();
    endQuietlyOnClosedPipe([stdout], stop);
    expect(() => stdout.emit('error', Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toThrow('no space');
    expect(stop).not.toHaveBeenCalled();
  });
});
