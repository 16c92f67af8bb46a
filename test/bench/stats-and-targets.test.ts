/** The benchmark's arithmetic: spreads of repeated runs and the verdicts on the targets. */
import { describe, expect, it } from 'vitest';
import { megabytesPerSecond, spread } from '../../bench/stats.js';
import { judge, TARGETS, type InputFigures } from '../../bench/targets.js';

describe('spread', () => {
  it('gives the median and the quartiles by linear interpolation', () => {
    // Sorted 1 2 3 4: median at position 1.5 -> 2.5; Q1 at 0.75 -> 1.75; Q3 at 2.25 -> 3.25.
    expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4, q1: 1.75, q3: 3.25, runs: 4 });
    expect(spread([7])).toEqual({ median: 7, min: 7, max: 7, q1: 7, q3: 7, runs: 1 });
  });

  it('quotes throughput in 10^6 bytes per second', () => {
    // 500,000,000 bytes in 4 s = 125 MB/s.
    expect(megabytesPerSecond(500_000_000, 4)).toBe(125);
  });
});

describe('judge', () => {
  const xml: InputFigures = {
    inputId: 'xml-log',
    title: 'XML',
    // gpu-audit 90 MB/s; the faster ElementTree variant 40 MB/s: 2.25x, short of 3x.
    medianMBps: new Map([['gpu-audit', 90], ['python-etree', 30], ['python-etree-pull', 40]]),
    gpuAuditPeakRssMiB: 120,
  };
  const csv: InputFigures = {
    inputId: 'csv-log',
    title: 'CSV',
    // 300 / 50 = 6x, over the 3x target.
    medianMBps: new Map([['gpu-audit', 300], ['python-csv', 50]]),
    gpuAuditPeakRssMiB: 310,
  };
  const verdicts = judge(TARGETS, [xml, csv], 2);

  it('compares with the faster variant of a peer and says by how much a target is missed', () => {
    expect(verdicts[0]).toEqual({
      target: 'XML: >= 3x Python ElementTree (faster variant)',
      measured: '2.25x',
      met: false,
      // 2.25 / 3 = 75 %; 3 / 2.25 = 1.33x more speed needed.
      shortBy: 'reaches 75 % of the target (needs 1.33x its current speed)',
    });
    expect(verdicts[1]).toMatchObject({ target: 'CSV: >= 3x Python csv', measured: '6.00x', met: true, shortBy: '' });
  });

  it('checks peak RSS on every input and the start-up ratio', () => {
    expect(verdicts.filter((verdict) => verdict.target.includes('peak RSS')).map((verdict) => [verdict.met, verdict.shortBy])).toEqual([
      [true, ''],
      [false, '10 MiB over'],
    ]);
    expect(verdicts.find((verdict) => verdict.target.startsWith('audit of a one-document'))).toMatchObject({ measured: '2.00x', met: true });
  });

  it('skips targets whose input was not run (--only)', () => {
    expect(verdicts.some((verdict) => verdict.target.includes('promtool'))).toBe(false);
    expect(verdicts.some((verdict) => verdict.target.startsWith('planning'))).toBe(false);
  });

  it('holds planning a 10,000-GPU fleet to 10 seconds', () => {
    const [within, over] = [4.2, 12.5].map((seconds) => judge(TARGETS, [], undefined, { gpus: 10_000, workloads: 2_000, seconds }).at(-1));
    expect(within).toEqual({ target: 'planning 10,000 GPUs with 2,000 workloads: <= 10 s', measured: '4.20 s', met: true, shortBy: '' });
    expect(over).toMatchObject({ met: false, shortBy: '2.50 s over' });
  });
});
