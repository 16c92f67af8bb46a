import { describe, expect, it } from 'vitest';
import { MonitorTable, parseMonitorHeader, splitFields } from '../../../../src/sources/lexers/text/monitor-table.js';

describe('splitFields', () => {
  it('splits on runs of blanks and ignores leading and trailing ones', () => {
    const out: string[] = [];
    expect(splitFields('    0    630     53  ', out)).toBe(3);
    expect(out.slice(0, 3)).toEqual(['0', '630', '53']);
  });

  it('gives the rest of the line, inner spaces kept, to the last field when limited (pmon command)', () => {
    const out: string[] = [];
    expect(splitFields('    0      15964   C+G      -    NVIDIA Overlay.$  ', out, 4)).toBe(4);
    expect(out.slice(0, 4)).toEqual(['0', '15964', 'C+G', '-    NVIDIA Overlay.$']);
  });
});

describe('parseMonitorHeader', () => {
  it('reads dmon and pmon names lines, with or without Date/Time columns', () => {
    expect(parseMonitorHeader('# gpu    pwr  gtemp     sm', 'dmon')).toEqual(['gpu', 'pwr', 'gtemp', 'sm']);
    expect(parseMonitorHeader('#Date       Time        gpu     fb   bar1', 'dmon')).toEqual(['Date', 'Time', 'gpu', 'fb', 'bar1']);
    expect(parseMonitorHeader('# gpu         pid   type     sm    command ', 'pmon')).toEqual(['gpu', 'pid', 'type', 'sm', 'command']);
  });

  it('keeps dmon and pmon apart', () => {
    expect(parseMonitorHeader('# gpu pid type sm command', 'dmon')).toBeUndefined();
    expect(parseMonitorHeader('# gpu pwr sm', 'pmon')).toBeUndefined();
  });

  it('refuses other comment lines', () => {
    for (const line of ['# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).', '#Entity   NVLTX   NVLRX', '# gpu', '# Idx W C', '#'.repeat(80)]) {
      expect(parseMonitorHeader(line, 'dmon'), line).toBeUndefined();
      expect(parseMonitorHeader(line, 'pmon'), line).toBeUndefined();
    }
  });
});

describe('MonitorTable', () => {
  it('classifies header, units, data and blank lines', () => {
    const table = new MonitorTable('dmon.txt', 'dmon');
    expect(table.read('#Date       Time        gpu    pwr', 1)).toBe('header');
    expect(table.read('#YYYYMMDD   HH:MM:SS    Idx      W', 2)).toBe('units');
    expect(table.layout?.units).toEqual(['YYYYMMDD', 'HH:MM:SS', 'Idx', 'W']);
    expect(table.read('', 3)).toBe('skip');
    expect(table.read(' 20240104   13:54:35      0     72', 4)).toBe('data');
    // 2024-01-04 13:54:35 UTC
    expect(table.rowTime('UTC')).toBe(Date.UTC(2024, 0, 4, 13, 54, 35));
  });

  it('reads the time of each row: the same Date and Time once, a new one, a zone, an unreadable one', () => {
    const table = new MonitorTable('dmon.txt', 'dmon');
    table.read('#Date       Time        gpu    pwr', 1);
    const timeOf = (row: string, zone = 'UTC'): number | undefined => {
      table.read(row, 2);
      return table.rowTime(zone);
    };
    expect(timeOf(' 20240104   13:54:35      0     72')).toBe(Date.UTC(2024, 0, 4, 13, 54, 35));
    expect(timeOf(' 20240104   13:54:35      1     70')).toBe(Date.UTC(2024, 0, 4, 13, 54, 35));
    expect(timeOf(' 20240104   13:54:36      0     72')).toBe(Date.UTC(2024, 0, 4, 13, 54, 36));
    expect(timeOf(' 20240105   13:54:36      0     72')).toBe(Date.UTC(2024, 0, 5, 13, 54, 36));
    // The same printed time in another zone is another instant (Berlin: UTC+1 in January).
    expect(timeOf(' 20240105   13:54:36      0     72', 'Europe/Berlin')).toBe(Date.UTC(2024, 0, 5, 12, 54, 36));
    expect(timeOf(' 20240105   25:54:36      0     72')).toBeNaN();
    expect(timeOf(' 20240105   25:54:36      1     72')).toBeNaN();
  });

  it('refuses a data row before any header, naming the line', () => {
    const table = new MonitorTable('dmon.txt', 'dmon');
    expect(() => table.read('    0    630', 1)).toThrow(expect.objectContaining({ file: 'dmon.txt', location: 'line 1' }));
  });
});
