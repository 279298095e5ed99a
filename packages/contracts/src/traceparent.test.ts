import { isTraceparent } from './traceparent';

describe('isTraceparent', () => {
  it.each([
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
    // A later version may append fields; a version-00 reader keeps the first four.
    '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
  ])('accepts %s', (value) => {
    expect(isTraceparent(value)).toBe(true);
  });

  it.each([
    ['an empty string', ''],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero span id', `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['a short trace id', '00-4bf92f3577b34da6-00f067aa0ba902b7-01'],
    ['something huge', `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-${'x'.repeat(300)}`],
  ])('rejects %s', (_what, value) => {
    expect(isTraceparent(value)).toBe(false);
  });
});
