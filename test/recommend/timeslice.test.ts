import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { overlapOf, timeSlicing } from '../../src/recommend/sharing/timeslice.js';
import { options, unit, weekProfile } from './helpers.js';

/** Nightly training 00:00-06:00 and business-hours inference 09:00-18:00: busy hours never meet. */
const nightly = (tenant: string | null = null) =>
  unit({ id: 'nightly-train', tenant, kind: 'training', vram: { peakMiB: 50000, p95MiB: 50000, requiredMiB: 57500, basis: 'measured' }, hourOfWeekPct: weekProfile((hour) => hour < 6, 90) });
const daytime = (tenant: string | null = null) =>
  unit({ id: 'daytime-infer', tenant, kind: 'inference', vram: { peakMiB: 60000, p95MiB: 60000, requiredMiB: 69000, basis: 'measured' }, hourOfWeekPct: weekProfile((hour) => hour >= 9 && hour < 18, 40) });

describe('time-slicing', () => {
  it('pairs nightly training with business-hours inference and emits the device plugin config', () => {
    // VRAM: 57,500 + 69,000 = 126,500 MiB <= 143,771. Overlap: 0 of 168 hours. One GPU freed: $10 x 730 = $7,300.
    const { recommendations } = timeSlicing([nightly(), daytime()], options());
    expect(recommendations).toHaveLength(1);
    const [advice] = recommendations;
    expect(advice!.monthlySavingsUsd).toBe(7300);
    expect(advice!.evidence).toMatchObject({ overlapHours: 0, observedHours: 168, requiredVramMiBSum: 126500 });
    expect(advice!.risks[0]).toMatch(/no memory or fault isolation/);
    expect(parse(advice!.config!.text)).toEqual({ version: 'v1', sharing: { timeSlicing: { resources: [{ name: 'nvidia.com/gpu', replicas: 2 }] } } });
  });

  it('counts the hours two members are busy at once', () => {
    // 09:00-18:00 and 16:00-20:00 meet at 16:00 and 17:00: 2 hours a day x 7 = 14 of 168.
    const late = unit({ id: 'late', hourOfWeekPct: weekProfile((hour) => hour >= 16 && hour < 20) });
    expect(overlapOf([daytime(), late], 5)).toEqual({ observedHours: 168, overlapHours: 14 });
    // 14 / 168 = 8.3% > the 5% allowed: no group.
    expect(timeSlicing([daytime(), late], options()).recommendations).toEqual([]);
  });

  it('never time-slices different tenants, and writes the reason', () => {
    const result = timeSlicing([nightly('research'), daytime('product')], options());
    expect(result.recommendations).toEqual([]);
    expect(result.notEnoughData[0]!.reason).toMatch(/tenants research and product differ: time-slicing gives no memory or fault isolation/);
  });

  it('keeps the memory of all members resident: 100 GB + 69 GB do not fit 141 GB', () => {
    const big = unit({ id: 'big', vram: { peakMiB: 90000, p95MiB: 90000, requiredMiB: 103500, basis: 'measured' }, hourOfWeekPct: weekProfile((hour) => hour < 6) });
    expect(timeSlicing([big, daytime()], options()).recommendations).toEqual([]);
  });

  it('says "not enough data" without an hour-of-week profile', () => {
    const result = timeSlicing([unit({ id: 'no-profile' }), daytime()], options());
    expect(result.notEnoughData).toEqual([{ strategy: 'time-slicing', targets: ['no-profile'], reason: 'no hour-of-week profile: cannot tell when it is busy' }]);
  });
});
