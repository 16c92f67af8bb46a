/**
 * A workload's VRAM peak on a GPU it shares: the device's own reading where every process
 * there is the workload's, else the sum of its processes' maxima capped by the device's peak,
 * and the basis says `upper-bound` when the required figure rests on such a sum.
 */
import { describe, expect, it } from 'vitest';
import { profileWorkloads } from '../../../src/analysis/workloads/index.js';
import { weaknessesOf } from '../../../src/recommend/confidence.js';
import type { DemandUnit } from '../../../src/recommend/types.js';
import type { ProcessSummary } from '../../../src/model/report.js';
import { gpuEntry } from '../gpu-fixtures.js';

const process = (pid: number, name: string, maxMemoryMiB: number | null): ProcessSummary => ({ pid, name, type: 'C', maxMemoryMiB, samples: 10 });

// An 80,000 MiB GPU whose memory in use peaked at 40,000 MiB (p95 38,000).
const device = (processes: ProcessSummary[]) => gpuEntry({
  id: 'GPU-shared', memoryTotalMiB: 80_000, memoryUsedMiB: { mean: 30_000, p95: 38_000, max: 40_000 }, processes,
});
const byProcess = (name: string, pattern: string) => ({ name, kind: 'batch' as const, match: { process: pattern } });

describe('VRAM on a shared GPU', () => {
  it('caps the sum of a workload\'s process maxima by the device\'s peak, and calls it an upper bound', () => {
    // a: 30,000 + 15,000 = 45,000 > the device's 40,000: peak 40,000 (upper bound);
    //    required 40,000 x 1.15 = 46,000, basis upper-bound.
    // b: one process, 10,000 (a reading of one process, not a sum): required 11,500, measured.
    const [a, b] = profileWorkloads([device([process(1, 'a.py', 30_000), process(2, 'a.py', 15_000), process(3, 'b.py', 10_000)])],
      [byProcess('a', 'a\\.py'), byProcess('b', 'b\\.py')]);
    expect(a!.vram).toMatchObject({ peakMiB: 40_000, p95MiB: null, basis: 'upper-bound', preallocating: false });
    expect(a!.vram.requiredMiB).toBeCloseTo(46_000, 9);
    expect(b!.vram).toMatchObject({ peakMiB: 10_000, p95MiB: null, basis: 'measured' });
    expect(b!.vram.requiredMiB).toBeCloseTo(11_500, 9);
  });

  it('keeps an uncapped sum of several maxima, still an upper bound', () => {
    // a: 20,000 + 15,000 = 35,000 <= 40,000: peak 35,000; required 35,000 x 1.15 = 40,250.
    const [a] = profileWorkloads([device([process(1, 'a.py', 20_000), process(2, 'a.py', 15_000), process(3, 'b.py', 5_000)])],
      [byProcess('a', 'a\\.py'), byProcess('b', 'b\\.py')]);
    expect(a!.vram).toMatchObject({ peakMiB: 35_000, basis: 'upper-bound' });
    expect(a!.vram.requiredMiB).toBeCloseTo(40_250, 9);
  });

  it('takes the device\'s own reading where every process on it is the workload\'s', () => {
    // Both workloads claim the GPU by host; a's rule also finds both processes, so b holds it
    // with no process. a: the device's 40,000 peak and 38,000 p95, a reading (measured);
    // required 46,000. b: no process memory, no figure.
    const [a, b] = profileWorkloads([device([process(1, 'a.py', 25_000), process(2, 'a.py', 20_000)])], [
      { name: 'a', kind: 'batch', match: { process: 'a\\.py', hosts: ['node-a'] } },
      { name: 'b', kind: 'batch', match: { hosts: ['node-a'] } },
    ]);
    expect(a!.sharedGpus).toEqual(['GPU-shared']);
    expect(a!.vram).toMatchObject({ peakMiB: 40_000, p95MiB: 38_000, basis: 'measured' });
    expect(a!.vram.requiredMiB).toBeCloseTo(46_000, 9);
    expect(b!.vram).toMatchObject({ peakMiB: null, basis: 'unknown' });
  });

  it('is measured when another of the workload\'s devices sets the same peak with a reading', () => {
    // GPU-alone (the workload alone, peak 40,000 read) and the shared GPU (capped sum 40,000):
    // the peak 40,000 is also a reading, so the basis stays measured.
    const alone = gpuEntry({ id: 'GPU-alone', memoryUsedMiB: { mean: 30_000, p95: 39_000, max: 40_000 }, processes: [process(9, 'a.py', 39_000)] });
    const [a] = profileWorkloads([alone, device([process(1, 'a.py', 30_000), process(2, 'a.py', 15_000), process(3, 'b.py', 10_000)])],
      [byProcess('a', 'a\\.py'), byProcess('b', 'b\\.py')]);
    expect(a!.vram).toMatchObject({ peakMiB: 40_000, p95MiB: 39_000, basis: 'measured' });
  });

  it('says why the bound lowers a recommendation\'s confidence: process peaks, not a preallocating server', () => {
    const unit = (preallocating: boolean) => ({
      label: 'a', window: { hours: 200, samples: 10_000 }, compute: { basis: 'sm-active' }, instanceTypeBasis: null,
      vram: { peakMiB: 40_000, p95MiB: null, requiredMiB: 46_000, basis: 'upper-bound', preallocating },
    }) as unknown as DemandUnit;
    const settings = { minWindowHours: 24, minSamples: 100 };
    expect(weaknessesOf([unit(false)], settings, { vram: true, compute: false }))
      .toEqual(['measured VRAM is an upper bound (sum of process peaks on a shared GPU): the real need may be lower (a)']);
    expect(weaknessesOf([unit(true)], settings, { vram: true, compute: false }))
      .toEqual(['measured VRAM is an upper bound (preallocating server): the real need may be lower, sized on the allocation (a)']);
  });
});
