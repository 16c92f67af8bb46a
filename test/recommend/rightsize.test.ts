import { describe, expect, it } from 'vitest';
import { bundledCatalog } from '../../src/catalog/index.js';
import { rightsize } from '../../src/recommend/rightsize.js';
import { GIB, options, unit } from './helpers.js';

describe('right-sizing', () => {
  it('moves a model that peaks at 62 GiB off a 141 GB H200 onto an 80 GB-class GPU (field example)', () => {
    // Peak 62 GiB = 63,488 MiB; required = 63,488 x 1.15 = 73,011.2 -> 73,012 MiB.
    // Compute: p95 10% of an H200 = 98.9 BF16 TFLOPS and 480 GB/s, both under an A100 80GB's 312 / 2,039.
    // Cheapest fit: A100 80GB at $5/GPU-h (81,920 MiB >= 73,012); the A100 40GB would need 2 GPUs ($8).
    const model = unit({ id: 'llm', vram: { peakMiB: 62 * GIB, p95MiB: 61 * GIB, requiredMiB: 73012, basis: 'measured' }, compute: { basis: 'sm-active', meanPct: 4, p95Pct: 10, busyFraction: 0.5, bound: 'unknown' } });
    const { recommendations, notEnoughData } = rightsize([model], options());
    expect(notEnoughData).toEqual([]);
    expect(recommendations).toHaveLength(1);
    const [advice] = recommendations;
    expect(advice!.evidence.proposedInstanceType).toBe('test.a100-80x8');
    expect(advice!.evidence.proposedVramMiB).toBe(81920);
    // ($10 - $5) x 730 h = $3,650 a month.
    expect(advice!.monthlySavingsUsd).toBe(3650);
    expect(advice!.confidence).toBe('high');
  });

  it('finds an 80 GB-class GPU for the same model in the bundled catalog', () => {
    const model = unit({
      id: 'llm',
      instanceType: 'p5en.48xlarge',
      hourlyUsdPerGpu: 63.296 / 8,
      vram: { peakMiB: 62 * GIB, p95MiB: 61 * GIB, requiredMiB: 73012, basis: 'measured' },
      compute: { basis: 'sm-active', meanPct: 4, p95Pct: 10, busyFraction: 0.5, bound: 'unknown' },
    });
    const [advice] = rightsize([model], options({ catalog: bundledCatalog() })).recommendations;
    expect(advice!.evidence.proposedGpus).toBe(1);
    const vram = advice!.evidence.proposedVramMiB as number;
    // 80 GB class: at least the 73,012 MiB required, well under the H200's 143,771.
    expect(vram).toBeGreaterThanOrEqual(73012);
    expect(vram).toBeLessThanOrEqual(100 * GIB);
  });

  it('never proposes less VRAM than the measured peak, even where compute would allow a small GPU', () => {
    // Peak 40 GiB: an L4 (22.5 GiB) or L40S (45 GiB) would take the compute, but the L40S's
    // 46,068 MiB is under 40 x 1024 x 1.15 = 47,104 MiB required.
    const model = unit({ id: 'embed', vram: { peakMiB: 40 * GIB, p95MiB: 39 * GIB, requiredMiB: 47104, basis: 'measured' }, compute: { basis: 'sm-active', meanPct: 1, p95Pct: 2, busyFraction: 0.3, bound: 'unknown' } });
    const [advice] = rightsize([model], options()).recommendations;
    expect(advice!.evidence.proposedVramMiB as number).toBeGreaterThanOrEqual(40 * GIB);
    expect(advice!.evidence.proposedInstanceType).toBe('test.a100-80x8');
  });

  it('scales compute by the basis: a compute-bound need of 60% of an H200 (593 TFLOPS) rules out the A100s', () => {
    // 0.6 x 989 = 593.4 TFLOPS > one A100 (312); two A100 40GB give 624 >= 593.4 at $8/h, one H100 (989.4) at $8/h:
    // equal price, fewer GPUs wins -> the H100.
    const model = unit({ id: 'train', compute: { basis: 'sm-active', meanPct: 50, p95Pct: 60, busyFraction: 0.9, bound: 'compute' } });
    const [advice] = rightsize([model], options()).recommendations;
    expect(advice!.evidence.proposedInstanceType).toBe('test.h100x8');
    expect(advice!.evidence.needBf16Tflops).toBe(593.4);
    expect(advice!.evidence.needBandwidthGBps).toBeNull();
  });

  it('splits tensor-parallel across GPUs when the model does not fit one', () => {
    // A model on one B200 ($20/h here) needing 150 GiB = 153,600 MiB: no 80 GB-class GPU holds it alone.
    // Need: 20% of a B200 = 0.2 x 2,250 = 450 TFLOPS and 0.2 x 8,000 = 1,600 GB/s.
    // Two A100 80GB: 163,840 MiB, 624 TFLOPS, 4,078 GB/s at 2 x $5 = $10/h (two A100 40GB hold only
    // 81,920 MiB; two H100 cost $16). Saving ($20 - $10) x 730 = $7,300.
    const model = unit({ id: 'big', modelKey: 'b200', memoryTotalMiB: 183359, hourlyUsdPerGpu: 20, vram: { peakMiB: 130 * GIB, p95MiB: 130 * GIB, requiredMiB: 150 * GIB, basis: 'measured' }, compute: { basis: 'sm-active', meanPct: 10, p95Pct: 20, busyFraction: 0.9, bound: 'unknown' } });
    const [advice] = rightsize([model], options()).recommendations;
    expect(advice!.evidence).toMatchObject({ proposedGpus: 2, proposedInstanceType: 'test.a100-80x8', needBf16Tflops: 450, needBandwidthGBps: 1600, proposedVramMiB: 163840 });
    expect(advice!.monthlySavingsUsd).toBe(7300);
    expect(advice!.risks.join(' ')).toMatch(/re-sharded from 1 to 2 GPUs \(tensor parallel/);
  });

  it('sizes a unit on several GPUs by its per-GPU need on each', () => {
    // Two H200s, 69 GiB required on each: 2 x 70,656 = 141,312 MiB in all, and 20% of each: 2 x 197.8 =
    // 395.6 TFLOPS, 2 x 960 = 1,920 GB/s. One H200 (143,771 MiB, 989 TFLOPS, 4,800 GB/s) holds both at $10/h,
    // as do two A100 80GB at 2 x $5: equal price, fewer GPUs wins. ($20 - $10) x 730 = $7,300.
    const model = unit({ id: 'pair', gpuCount: 2, gpuIds: ['g0', 'g1'] });
    const [advice] = rightsize([model], options()).recommendations;
    expect(advice!.evidence).toMatchObject({ requiredVramMiBTotal: 141312, proposedGpus: 1, proposedInstanceType: 'test.h200x8', needBf16Tflops: 395.6 });
    expect(advice!.monthlySavingsUsd).toBe(7300);
    expect(advice!.risks.join(' ')).toMatch(/re-sharded from 2 to 1 GPU/);
  });

  it('says the latency risk when a latency-bound service moves to a slower GPU', () => {
    const service = unit({ id: 'chat', kind: 'inference', serving: { unit: null, perGpuThroughputPerSecond: null, peakDemandPerSecond: null, latencySloMs: 250, coldStartSeconds: null, rampPerMinute: null, queueMetric: null }, vram: { peakMiB: 30 * GIB, p95MiB: 30 * GIB, requiredMiB: 35 * GIB, basis: 'measured' } });
    const [advice] = rightsize([service], options()).recommendations;
    expect(advice!.risks.join(' ')).toMatch(/latency rises; verify the 250 ms latency SLO/);
  });

  it('releases a GPU idle for the whole window', () => {
    const notebook = unit({ id: 'nb', kind: 'interactive', hourlyUsdPerGpu: 1.5, compute: { basis: 'utilization', meanPct: 0, p95Pct: 0, busyFraction: 0, bound: 'unknown' } });
    const [advice] = rightsize([notebook], options()).recommendations;
    expect(advice!.proposed).toBe('release the GPU');
    // $1.50 x 730 = $1,095.
    expect(advice!.monthlySavingsUsd).toBe(1095);
    expect(advice!.risks.join(' ')).toMatch(/culler/);
  });

  it('lowers confidence for a short window, the utilization basis and an inferred instance type, and names each', () => {
    const model = unit({ id: 'short', window: { hours: 6, samples: 72 }, instanceTypeBasis: 'inferred', compute: { basis: 'utilization', meanPct: 4, p95Pct: 10, busyFraction: 0.5, bound: 'unknown' } });
    const [advice] = rightsize([model], options()).recommendations;
    expect(advice!.confidence).toBe('low');
    const reasons = advice!.confidenceReasons.join(' | ');
    expect(reasons).toMatch(/under 24 h/);
    expect(reasons).toMatch(/72 samples, fewer than 100/);
    expect(reasons).toMatch(/utilization.gpu/);
    expect(reasons).toMatch(/inferred/);
  });

  it('answers "not enough data" without a price, memory or compute figure, never a guess', () => {
    const result = rightsize(
      [
        unit({ id: 'unpriced', hourlyUsdPerGpu: null }),
        unit({ id: 'no-memory', vram: { peakMiB: null, p95MiB: null, requiredMiB: null, basis: 'unknown' } }),
        unit({ id: 'no-compute', compute: { basis: 'processes', meanPct: null, p95Pct: null, busyFraction: 0.4, bound: 'unknown' } }),
      ],
      options(),
    );
    expect(result.recommendations).toEqual([]);
    expect(result.notEnoughData.map((entry) => entry.targets[0])).toEqual(['unpriced', 'no-memory', 'no-compute']);
    expect(result.notEnoughData[2]!.reason).toMatch(/basis processes/);
  });

  it('leaves a GPU alone when it is already the cheapest fit', () => {
    const model = unit({ id: 'fits', modelKey: 'a100-sxm4-80gb', memoryTotalMiB: 81920, hourlyUsdPerGpu: 5, instanceType: 'test.a100-80x8', vram: { peakMiB: 60 * GIB, p95MiB: 60 * GIB, requiredMiB: 69 * GIB, basis: 'measured' } });
    expect(rightsize([model], options()).recommendations).toEqual([]);
  });
});
