import { describe, expect, it } from 'vitest';
import {
  describeEvidence,
  displayTimeZone,
  MISSING,
  formatDuration,
  formatInstant,
  formatMemory,
  formatNumber,
  formatPercent,
  formatQuantity,
  formatUsd,
  formatWindow,
  fractionAsPercent,
  mibAsGib,
} from '../../src/render/format.js';

describe('formatNumber', () => {
  it.each([null, undefined, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('prints %s as -', (value) => {
    expect(formatNumber(value, 1)).toBe('-');
  });

  it.each<[number, number, string]>([
    [0, 1, '0.0'],
    [41.666_666, 1, '41.7'],
    [18_677.78, 0, '18,678'],
    [1234.5, 1, '1,234.5'],
    [-0.04, 1, '0.0'], // a rounded zero has no sign
    [-0.06, 1, '-0.1'],
    [1.006, 2, '1.01'],
  ])('rounds %d to %i decimals as %s, whatever the machine locale', (value, digits, expected) => {
    expect(formatNumber(value, digits)).toBe(expected);
  });
});

describe('units', () => {
  it('scales MiB to GiB and fractions to percent for display only', () => {
    expect(mibAsGib(81_559)).toBeCloseTo(79.647, 3); // 81559 / 1024
    expect(mibAsGib(null)).toBeNull();
    expect(fractionAsPercent(0.875)).toBe(87.5);
    expect(fractionAsPercent(undefined)).toBeNull();
  });

  it('writes money, percentages, memory and counts with their units', () => {
    expect(formatUsd(18_677.78, 0)).toBe('$18,678');
    expect(formatUsd(12.29, 2)).toBe('$12.29');
    expect(formatUsd(-5, 0)).toBe('-$5');
    expect(formatUsd(-0.2, 0)).toBe('$0');
    expect(formatUsd(null, 0)).toBe('-');
    expect(formatPercent(41.666, 1)).toBe('41.7%');
    expect(formatPercent(null)).toBe('-');
    expect(formatMemory(512)).toBe('512 MiB');
    expect(formatMemory(73_728)).toBe('72.0 GiB');
    expect(formatMemory(null)).toBe('-');
    expect(formatQuantity(1, 'record')).toBe('1 record');
    expect(formatQuantity(1440, 'record')).toBe('1,440 records');
  });

  it.each<[number, string]>([
    [30, '30 s'],
    [1200, '20 min'],
    [86_400, '24.0 h'],
    [259_200, '72.0 h'],
    [604_800, '7.0 d'],
  ])('reads a %i s window as %s', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });
});

describe('time', () => {
  it('prints an instant in the report zone, with daylight saving', () => {
    expect(formatInstant('2026-12-01T00:00:00Z', 'Europe/Berlin')).toBe('2026-12-01 01:00:00'); // CET, UTC+1
    expect(formatInstant('2026-07-01T00:00:00Z', 'Europe/Berlin')).toBe('2026-07-01 02:00:00'); // CEST, UTC+2
    expect(formatInstant('2026-12-01T23:59:59.999Z', 'UTC')).toBe('2026-12-01 23:59:59');
    expect(formatInstant(null, 'UTC')).toBe('-');
    expect(formatInstant('not a time', 'UTC')).toBe('-');
  });

  it('falls back to UTC for a zone the runtime does not know', () => {
    expect(displayTimeZone('Mars/Olympus_Mons')).toBe('UTC');
    expect(displayTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
  });

  it('describes a window, a snapshot, and a window without timestamps', () => {
    expect(formatWindow({ start: '2026-12-01T00:00:00Z', end: '2026-12-01T06:00:00Z', seconds: 21_600, timezone: 'Asia/Kolkata' })).toBe(
      '2026-12-01 05:30:00 → 2026-12-01 11:30:00 Asia/Kolkata (6.0 h)',
    );
    expect(formatWindow({ start: '2026-12-01T00:00:00Z', end: '2026-12-01T00:00:00Z', seconds: 0, timezone: 'UTC' })).toBe(
      'snapshot at 2026-12-01 00:00:00 UTC (no duration)',
    );
    expect(formatWindow({ start: null, end: null, seconds: 0, timezone: 'UTC' })).toBe('no timestamped samples');
  });
});

describe('settings', () => {
  it('prints a threshold as given, not rounded to the display precision of figures', () => {
    expect(formatPercent(5, null)).toBe('5%');
    expect(formatPercent(2.5, null)).toBe('2.5%');
  });
});

describe('describeEvidence', () => {
  it('rounds numbers for reading, to at most 3 decimals, and keeps strings, booleans and null', () => {
    expect(describeEvidence({ idleHours: 26.014166666666668, gpus: 8, basis: 'assumed', dated: false, observedAt: null })).toBe('idleHours=26.014; gpus=8; basis=assumed; dated=false; observedAt=null');
    expect(describeEvidence({})).toBe(MISSING);
  });
});
