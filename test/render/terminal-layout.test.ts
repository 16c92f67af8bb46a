import { describe, expect, it } from 'vitest';
import { fitColumnWidths, truncateEnd, truncateMiddle, wrapItems, wrapWords } from '../../src/render/terminal-layout.js';

describe('truncation', () => {
  it('cuts the end of a name, or the middle of a hostname, to the width', () => {
    expect(truncateEnd('nvidia-cuda-mps-server', 10)).toBe('nvidia-cu…');
    expect(truncateMiddle('gke-prod-gpu-pool-1a2b3c4d-x7k9', 15)).toBe('gke-pro…4d-x7k9');
    expect(truncateMiddle('short', 15)).toBe('short');
  });
});

describe('wrapWords', () => {
  it('wraps at spaces with a hanging indent, cutting only words longer than a line', () => {
    expect(wrapWords('the GPU waits on the input pipeline', 16, '  ')).toEqual(['the GPU waits on', '  the input', '  pipeline']);
    expect(wrapWords('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapWords('', 10)).toEqual(['']);
  });
});

describe('wrapItems', () => {
  it('moves whole items to the next line, under the first item', () => {
    // 'gpu0  python3 72.0 GiB,' is 23 columns; adding ' worker 1.0 GiB,' would make 39 > 36.
    expect(wrapItems(['python3 72.0 GiB', 'worker 1.0 GiB', 'mps 512 MiB'], 36, 'gpu0  ', '      ')).toEqual([
      'gpu0  python3 72.0 GiB,',
      '      worker 1.0 GiB, mps 512 MiB',
    ]);
  });
});

describe('fitColumnWidths', () => {
  const columns = [
    { natural: 20, minimum: 6, flexible: true },
    { natural: 5, minimum: 0, flexible: false },
    { natural: 12, minimum: 6, flexible: true },
  ];

  it('keeps natural widths when they fit', () => {
    expect(fitColumnWidths(columns, 40)).toEqual([20, 5, 12]);
  });

  it('takes from the widest flexible column first, never from figures', () => {
    expect(fitColumnWidths(columns, 30)).toEqual([13, 5, 12]);
    // 37 -> 20: the first column gives 8 (down to 12), then the two 12s take turns: 7 and 8.
    expect(fitColumnWidths(columns, 20)).toEqual([7, 5, 8]);
  });

  it('stops at the minimums when the width cannot be met', () => {
    expect(fitColumnWidths(columns, 5)).toEqual([6, 5, 6]);
  });
});
