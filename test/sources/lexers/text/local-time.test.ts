import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LocalTimestampReader } from '../../../../src/sources/lexers/text/local-time.js';
import { parseLocalTimestamp } from '../../../../src/sources/lexers/timestamps.js';

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

describe('LocalTimestampReader', () => {
  it('reads nvidia-smi CSV timestamps in the given zone', () => {
    // Berlin is UTC+2 in July: 09:00:44.579 local = 07:00:44.579 UTC.
    expect(new LocalTimestampReader('Europe/Berlin').read('2026/07/14 09:00:44.579')).toBe(Date.UTC(2026, 6, 14, 7, 0, 44, 579));
    expect(new LocalTimestampReader('UTC').read('2026/07/14 09:00:44')).toBe(Date.UTC(2026, 6, 14, 9, 0, 44));
  });

  it('rejects what parseLocalTimestamp rejects', () => {
    const reader = new LocalTimestampReader('UTC');
    for (const text of ['yesterday', '2026/13/14 09:00:44.579', '2026/02/31 09:00:44.579', '2026/07/14 09:00:4x.579', '']) {
      expect(reader.read(text), text).toBeUndefined();
    }
  });

  it('gives exactly what parseLocalTimestamp gives, across DST changes, in any order of rows', () => {
    // Minutes around Berlin's 2026 changes (29 March 02:00 -> 03:00, 25 October 03:00 -> 02:00) and New York's.
    const stamp = fc.record({
      date: fc.constantFrom('2026/03/29', '2026/10/25', '2026/03/08', '2026/11/01', '2024/02/29'),
      hour: fc.integer({ min: 0, max: 4 }),
      minute: fc.integer({ min: 0, max: 59 }),
      second: fc.integer({ min: 0, max: 60 }),
      ms: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
    }).map(({ date, hour, minute, second, ms }) =>
      `${date} ${pad(hour)}:${pad(minute)}:${pad(second)}${ms === undefined ? '' : `.${pad(ms, 3)}`}`);
    fc.assert(fc.property(fc.constantFrom('Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'UTC'), fc.array(stamp, { maxLength: 20 }), (zone, texts) => {
      const reader = new LocalTimestampReader(zone);
      for (const text of texts) expect(reader.read(text), `${zone} ${text}`).toBe(parseLocalTimestamp(text, zone));
    }), { numRuns: 300 });
  });
});
