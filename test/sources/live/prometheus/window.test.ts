import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/support/errors.js';
import { parseDurationSeconds, promSpan, resolveWindow, splitWindow, timelineBucketSeconds } from '../../../../src/sources/live/prometheus/window.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

describe('durations', () => {
  it('reads Prometheus-style durations, compound ones included', () => {
    expect(parseDurationSeconds('5m')).toBe(300);
    expect(parseDurationSeconds('36h')).toBe(129_600);
    expect(parseDurationSeconds('7d')).toBe(604_800);
    // 1w2d = 7 d + 2 d = 9 x 86,400 s
    expect(parseDurationSeconds('1w2d')).toBe(777_600);
  });

  it('rejects what is not one', () => {
    for (const text of ['', '5', 'm5', '5 minutes', '1.5h', '0s', '-5m', '5ms']) expect(parseDurationSeconds(text)).toBeUndefined();
  });

  it('sizes a span so that it covers [start + 1 ms, end] under either range rule', () => {
    // Prometheus 2.x includes both ends: [end - 86,399,999 ms, end] = [start + 1 ms, end].
    expect(promSpan(86_400, 'closed')).toBe('86399999ms');
    // Prometheus 3.x leaves the start out: (end - 86,400,000 ms, end] = [start + 1 ms, end] in whole ms.
    expect(promSpan(86_400, 'left-open')).toBe('86400000ms');
  });
});

describe('the audit window', () => {
  it('counts --since back from --until, and --until back from now', () => {
    const window = resolveWindow({ since: '26h', until: '2026-11-03T02:00:00Z' }, NOW);
    expect(new Date(window.startMs).toISOString()).toBe('2026-11-02T00:00:00.000Z');
    expect(new Date(window.endMs).toISOString()).toBe('2026-11-03T02:00:00.000Z');
    expect(window.stepSeconds).toBe(300);

    const recent = resolveWindow({ since: '7d', until: '1d', step: '1m' }, NOW);
    expect(new Date(recent.endMs).toISOString()).toBe('2026-11-28T12:00:00.000Z');
    expect(new Date(recent.startMs).toISOString()).toBe('2026-11-21T12:00:00.000Z');
    expect(recent.stepSeconds).toBe(60);
  });

  it('ends now when --until is not given', () => {
    expect(resolveWindow({ since: '1h' }, NOW)).toEqual({ startMs: NOW - 3_600_000, endMs: NOW, stepSeconds: 300 });
  });

  it('refuses reversed windows, unreadable times and steps longer than the window', () => {
    expect(() => resolveWindow({ since: '2026-11-05T00:00:00Z', until: '2026-11-04T00:00:00Z' }, NOW)).toThrow(InputError);
    expect(() => resolveWindow({ since: 'last tuesday' }, NOW)).toThrow(/--since "last tuesday": expected a duration/);
    expect(() => resolveWindow({ since: '10m', step: '1h' }, NOW)).toThrow(/--step 1h is longer than the window/);
    expect(() => resolveWindow({ since: '1d', step: 'soon' }, NOW)).toThrow(/--step "soon"/);
  });
});

describe('timeline buckets', () => {
  it('doubles one minute until at most 500 epoch-aligned buckets cover the window', () => {
    const start = Date.parse('2026-11-01T23:00:00Z');
    // 28 h = 1,680 min: 1 min -> 1,680, 2 min -> 840, 4 min -> 420 buckets.
    expect(timelineBucketSeconds(start, start + 28 * 3_600_000)).toBe(240);
    // 30 days = 43,200 min: 2^7 = 128 min -> 337.5, so 338 or 339 aligned buckets.
    expect(timelineBucketSeconds(start, start + 30 * 86_400_000)).toBe(128 * 60);
    expect(timelineBucketSeconds(start, start + 60_000)).toBe(60);
  });
});

describe('chunks', () => {
  it('covers the window exactly with whole steps, the last chunk shorter', () => {
    const startMs = Date.parse('2026-11-01T23:00:00Z');
    // 28 h at 5 min steps, 1-day chunks: [23:00, +24 h], [+24 h, +28 h].
    const chunks = splitWindow({ startMs, endMs: startMs + 28 * 3_600_000, stepSeconds: 300 }, 86_400);
    expect(chunks).toEqual([
      { startMs, endMs: startMs + 24 * 3_600_000 },
      { startMs: startMs + 24 * 3_600_000, endMs: startMs + 28 * 3_600_000 },
    ]);
  });

  it('rounds the chunk down to a whole number of steps, never below one step', () => {
    // 7 s chunks at a 5 s step become 5 s chunks; 1 s chunks at 5 s become one step.
    expect(splitWindow({ startMs: 0, endMs: 12_000, stepSeconds: 5 }, 7).map((chunk) => chunk.endMs)).toEqual([5_000, 10_000, 12_000]);
    expect(splitWindow({ startMs: 0, endMs: 10_000, stepSeconds: 5 }, 1)).toHaveLength(2);
  });
});
