import pino from 'pino';
import { StallBoard } from './stall-board';

function recordingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { logger, lines };
}

describe('StallBoard', () => {
  it('logs a stall once when it starts and its length when it ends, and is unclear in between', () => {
    const { logger, lines } = recordingLogger();
    let now = 1_000;
    const board = new StallBoard(logger, { now: () => now });
    expect(board.isClear()).toBe(true);
    board.begin('redis:operator.commands', 'no answer from Redis', { queue: 'operator.commands' });
    now += 500;
    board.begin('redis:operator.commands', 'no answer from Redis', { queue: 'operator.commands' });
    expect(board.isClear()).toBe(false);
    expect(board.active()).toEqual(['redis:operator.commands']);
    now += 1_500;
    board.end('redis:operator.commands');
    board.end('redis:operator.commands');
    expect(board.isClear()).toBe(true);
    expect(lines.map((l) => [l['level'], l['msg'], l['stall'], l['stalledMs']])).toEqual([
      [40, 'no answer from Redis', 'redis:operator.commands', undefined],
      [30, 'redis:operator.commands: heard again after a stall of 2000 ms (counted from when its bound was passed)', 'redis:operator.commands', 2000],
    ]);
    expect(lines[0]?.['queue']).toBe('operator.commands');
  });
});
