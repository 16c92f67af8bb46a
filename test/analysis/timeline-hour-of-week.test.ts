/**
 * GpuEntry.hourOfWeekComputePct: the time-weighted compute mean for each of the 168 hours of
 * the week in the report's time zone, index 0 = Monday 00:00-01:00 local.
 */
import { describe, expect, it } from 'vitest';
import { createFleetAnalyzer } from '../../src/analysis/index.js';
import { ZoneClock } from '../../src/analysis/zone-clock.js';
import type { GpuSample } from '../../src/model/observations.js';
import type { GpuEntry } from '../../src/model/report.js';
import { gpu0, only } from './events.js';

const HOUR = 3_600_000;

function analyzeIn(timeZone: string, samples: readonly { time: string; utilizationPct: number }[]): GpuEntry {
  const analyzer = createFleetAnalyzer({ idleThresholdPct: 5, timeZone });
  analyzer.beginSource('gpu.csv');
  for (const { time, utilizationPct } of samples) analyzer.sample({ ref: gpu0, time: Date.parse(time), utilizationPct } satisfies GpuSample);
  return only(analyzer.finish().gpus);
}

/** The hours that hold a value, as { hour: mean }. */
function observedHours(gpu: GpuEntry): Record<number, number> {
  expect(gpu.hourOfWeekComputePct).toHaveLength(168);
  return Object.fromEntries((gpu.hourOfWeekComputePct ?? []).flatMap((pct, hour) => (pct === null ? [] : [[hour, pct]])));
}

// 2026-01-05 is a Monday.
const mondayMidnightUtc = [
  { time: '2026-01-05T00:00:00Z', utilizationPct: 40 },
  { time: '2026-01-05T00:30:00Z', utilizationPct: 60 },
];

describe('hour of the week', () => {
  it('starts at Monday 00:00 with index 0', () => {
    // Interval 1800 s, median 1800: [00:00, 00:30) 40 %, [00:30, 01:00) 60 % -> (40 + 60) / 2 = 50.
    expect(observedHours(analyzeIn('UTC', mondayMidnightUtc))).toEqual({ 0: 50 });
  });

  it('counts in the report time zone', () => {
    // Monday 00:00Z is Sunday 19:00 in New York (EST, UTC-5): Sunday = day 6, 6 x 24 + 19 = 163.
    expect(observedHours(analyzeIn('America/New_York', mondayMidnightUtc))).toEqual({ 163: 50 });
  });

  it('ends at Sunday 23:00 with index 167', () => {
    // Monday 04:30Z is Sunday 23:30 EST, the last hour of the local week.
    const gpu = analyzeIn('America/New_York', [
      { time: '2026-01-05T04:30:00Z', utilizationPct: 10 },
      { time: '2026-01-05T04:45:00Z', utilizationPct: 30 },
    ]);
    // [23:30, 23:45) 10 %, [23:45, 00:00) 30 % -> Sunday 23 = 20; Monday 00:00 gets nothing.
    expect(observedHours(gpu)).toEqual({ 167: 20 });
  });

  it('splits a sample where the clocks spring forward, and leaves the skipped hour empty', () => {
    // Berlin, Sunday 2026-03-29: at 01:00Z, 02:00 CET becomes 03:00 CEST.
    // Samples 00:30Z (20 %) and 01:30Z (80 %), interval and median 3600 s.
    // 20 %: [00:30Z, 01:30Z) = 01:30-02:00 CET (Sunday 01, hour 145) + 03:00-03:30 CEST (hour 147).
    // 80 %: [01:30Z, 02:30Z) = 03:30-04:00 CEST (hour 147) + 04:00-04:30 (hour 148).
    // Hour 146 (02:00) never happened. Hour 147: 30 min of 20 and 30 min of 80 -> 50.
    const gpu = analyzeIn('Europe/Berlin', [
      { time: '2026-03-29T00:30:00Z', utilizationPct: 20 },
      { time: '2026-03-29T01:30:00Z', utilizationPct: 80 },
    ]);
    expect(observedHours(gpu)).toEqual({ 145: 20, 147: 50, 148: 80 });
  });

  it('puts both runs of the repeated hour into one slot when the clocks fall back', () => {
    // Berlin, Sunday 2026-10-25: at 01:00Z, 03:00 CEST becomes 02:00 CET, so 02:00-03:00 runs twice.
    // [00:00Z, 01:00Z) 10 % = 02:00-03:00 CEST; [01:00Z, 02:00Z) 30 % = 02:00-03:00 CET.
    // Both are Sunday 02 (hour 146): two hours, mean (10 + 30) / 2 = 20.
    const gpu = analyzeIn('Europe/Berlin', [
      { time: '2026-10-25T00:00:00Z', utilizationPct: 10 },
      { time: '2026-10-25T01:00:00Z', utilizationPct: 30 },
    ]);
    expect(observedHours(gpu)).toEqual({ 146: 20 });
  });

  it('counts zones with half-hour offsets at their own hour edges', () => {
    // Kolkata is UTC+5:30: 2026-01-04T18:30Z is Monday 00:00 IST. One hour from 18:00Z at 40 %:
    // [18:00Z, 18:30Z) = Sunday 23:30-24:00 (hour 167); [18:30Z, 19:00Z) = Monday 00:00-00:30 (hour 0).
    const gpu = analyzeIn('Asia/Kolkata', [
      { time: '2026-01-04T18:00:00Z', utilizationPct: 40 },
      { time: '2026-01-04T18:30:00Z', utilizationPct: 40 },
    ]);
    expect(observedHours(gpu)).toEqual({ 0: 40, 167: 40 });
  });

  it('defaults to UTC', () => {
    const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
    analyzer.beginSource('gpu.csv');
    for (const { time, utilizationPct } of mondayMidnightUtc) analyzer.sample({ ref: gpu0, time: Date.parse(time), utilizationPct });
    expect(observedHours(only(analyzer.finish().gpus))).toEqual({ 0: 50 });
  });
});

describe('ZoneClock', () => {
  const berlin = new ZoneClock('Europe/Berlin');

  it('reads the offset before and after a DST change', () => {
    expect(berlin.offsetMs(Date.parse('2026-03-29T00:59:59Z'))).toBe(HOUR);
    expect(berlin.offsetMs(Date.parse('2026-03-29T01:00:00Z'))).toBe(2 * HOUR);
  });

  it('ends a piece of time at the next local hour or at the change of offset', () => {
    expect(berlin.nextHourChange(Date.parse('2026-03-29T00:30:00Z'))).toBe(Date.parse('2026-03-29T00:45:00Z'));
    expect(berlin.nextHourChange(Date.parse('2026-03-29T00:45:00Z'))).toBe(Date.parse('2026-03-29T01:00:00Z'));
    expect(new ZoneClock('UTC').nextHourChange(Date.parse('2026-03-29T00:30:00Z'))).toBe(Date.parse('2026-03-29T01:00:00Z'));
  });

  it('rejects a zone Intl does not know', () => {
    expect(() => new ZoneClock('Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
