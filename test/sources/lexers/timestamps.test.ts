import { describe, expect, it } from 'vitest';
import { parseLocalTimestamp } from '../../../src/sources/lexers/timestamps.js';

const iso = (text: string, timeZone: string): string | undefined => {
  const epochMs = parseLocalTimestamp(text, timeZone);
  return epochMs === undefined ? undefined : new Date(epochMs).toISOString();
};

describe('parseLocalTimestamp across DST changes', () => {
  // Europe/Berlin, 2026: CET (UTC+1) until Sunday 29 March 02:00 local, when clocks jump to
  // 03:00 CEST (UTC+2); back on Sunday 25 October at 03:00 CEST, to 02:00 CET.
  it('reads the hour before the spring change with the winter offset', () => {
    expect(iso('2026/03/29 00:30:00', 'Europe/Berlin')).toBe('2026-03-28T23:30:00.000Z');
    expect(iso('2026/03/29 01:59:00', 'Europe/Berlin')).toBe('2026-03-29T00:59:00.000Z');
    expect(iso('2026/03/29 03:00:00', 'Europe/Berlin')).toBe('2026-03-29T01:00:00.000Z');
  });

  it('reads a skipped time, which no clock shows, with the offset from before the change', () => {
    // 02:30 does not exist; read as CET (+1) it is 01:30Z, the instant the clock showed as 03:30 CEST.
    expect(iso('2026/03/29 02:30:00', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
  });

  it('reads the repeated autumn hour as its first occurrence (summer time)', () => {
    expect(iso('2026/10/25 01:59:00', 'Europe/Berlin')).toBe('2026-10-24T23:59:00.000Z');
    // 02:30 happens twice: 00:30Z (CEST) and 01:30Z (CET); the earlier is taken.
    expect(iso('2026/10/25 02:30:00', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
    expect(iso('2026/10/25 03:00:00', 'Europe/Berlin')).toBe('2026-10-25T02:00:00.000Z');
  });

  it('does the same west of Greenwich and in zones with half-hour offsets', () => {
    // America/New_York 2026: EST (-5) to EDT (-4) on 8 March at 02:00; back on 1 November at 02:00.
    expect(iso('2026/03/08 01:30:00', 'America/New_York')).toBe('2026-03-08T06:30:00.000Z');
    expect(iso('2026/03/08 03:30:00', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
    expect(iso('2026/11/01 01:30:00', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    // Australia/Adelaide: ACDT (+10:30) until 5 April 2026 03:00, then ACST (+9:30).
    expect(iso('2026/04/05 01:30:00', 'Australia/Adelaide')).toBe('2026-04-04T15:00:00.000Z');
    expect(iso('2026/07/01 12:00:00', 'Australia/Adelaide')).toBe('2026-07-01T02:30:00.000Z');
  });
});
