import { describe, expect, it } from 'vitest';
import { CSV_HEADERS, csvField, neutralizeFormula, renderCsv } from '../../src/render/csv.js';
import { DEFAULT_RENDER_OPTIONS } from '../../src/render/types.js';
import { A10G_ID, SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { copyOf } from './helpers.js';

/** A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (quoted) {
      if (character === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (character === '"') quoted = false;
      else field += character;
    } else if (character === '"') quoted = true;
    else if (character === ',') {
      row.push(field);
      field = '';
    } else if (character === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index += 1;
    } else field += character;
  }
  expect(field).toBe('');
  expect(row).toEqual([]);
  return rows;
}

describe('CSV report', () => {
  const rows = parseCsv(renderCsv(SMALL_FLEET, DEFAULT_RENDER_OPTIONS));
  const header = rows[0]!;
  const cell = (row: string[], name: string): string => row[header.indexOf(name)]!;

  it('has one row per GPU and MIG device, every row as wide as the header', () => {
    expect(rows).toHaveLength(1 + SMALL_FLEET.gpus.length);
    for (const row of rows) expect(row).toHaveLength(CSV_HEADERS.length);
  });

  it('puts the unit of every figure in its header name', () => {
    for (const name of ['memory_total_mib', 'vram_headroom_pct', 'utilization_mean_pct', 'idle_pct', 'idle_h', 'gpu_h', 'hourly_cost_usd_per_h']) expect(header).toContain(name);
  });

  it('writes the Report\'s values unrounded, idle as a percentage, and null as an empty cell', () => {
    const a10g = rows.find((row) => cell(row, 'gpu_id') === A10G_ID)!;
    expect(cell(a10g, 'host')).toBe('node-b');
    expect(Number(cell(a10g, 'vram_headroom_pct'))).toBe((20_980 / 23_028) * 100); // 91.106...
    expect(cell(a10g, 'idle_pct')).toBe('87.5'); // idleFraction 0.875 x 100
    expect(cell(a10g, 'idle_h')).toBe('21');
    expect(cell(a10g, 'hourly_cost_usd_per_h')).toBe('1.006');
    expect(cell(a10g, 'sm_active_mean_pct')).toBe('');
    expect(cell(a10g, 'processes')).toBe('python [880]');
  });

  it('quotes fields with commas, quotes and line breaks (RFC 4180) and ends every record with CRLF', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    const report = copyOf(SMALL_FLEET);
    report.gpus[0]!.host = 'rack "7", row\r\n2';
    const text = renderCsv(report, DEFAULT_RENDER_OPTIONS);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/gu, '')).not.toMatch(/(?<!")\r\n/u);
    expect(cell(parseCsv(text)[1]!, 'host')).toBe('rack "7", row\r\n2');
  });

  it('drops escape sequences, controls and bidi overrides that came with the inputs, keeping tabs and line ends', () => {
    const report = copyOf(SMALL_FLEET);
    report.gpus[0]!.host = 'node\u001b[2J-a\u001b]8;;http://x\u0007link\u001b]8;;\u0007\u202e\u0000';
    expect(cell(parseCsv(renderCsv(report, DEFAULT_RENDER_OPTIONS))[1]!, 'host')).toBe('node-alink');
    expect(csvField('a\tb\r\nc')).toBe('"a\tb\r\nc"');
  });

  it('neutralises spreadsheet formulas in strings from the inputs, never in numbers', () => {
    for (const formula of ['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd']) expect(neutralizeFormula(formula)).toBe(`'${formula}`);
    expect(neutralizeFormula('node-a')).toBe('node-a');
    expect(csvField(-3)).toBe('-3');
    const report = copyOf(SMALL_FLEET);
    report.gpus[0]!.host = '=cmd|\' /C calc\'!A0';
    report.gpus[0]!.processes = [{ pid: 1, name: '@evil', type: 'C', maxMemoryMiB: 1, samples: 1 }];
    const row = parseCsv(renderCsv(report, DEFAULT_RENDER_OPTIONS))[1]!;
    expect(cell(row, 'host')).toBe('\'=cmd|\' /C calc\'!A0');
    // The processes cell starts with the process name: neutralised as a whole.
    expect(cell(row, 'processes')).toBe('\'@evil [1]');
  });
});
