import { describe, expect, it } from 'vitest';
import { DEFAULT_RENDER_OPTIONS, isReportFormat, renderReport, renderers, reportFormats } from '../../src/render/index.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { ANSI_OR_CONTROL, columns, linesOf } from './helpers.js';

describe('renderers registry', () => {
  it('offers table, json, markdown, html and csv, and knows no other name', () => {
    expect(reportFormats).toEqual(['table', 'json', 'markdown', 'html', 'csv']);
    expect(isReportFormat('markdown')).toBe(true);
    expect(isReportFormat('toString')).toBe(false);
    expect(isReportFormat('sarif')).toBe(false);
  });

  it.each(reportFormats)('%s renders text ending in one newline', (format) => {
    const text = renderers[format](SMALL_FLEET, DEFAULT_RENDER_OPTIONS);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(false);
  });

  it('renders without colour at 100 columns unless told otherwise', () => {
    expect(DEFAULT_RENDER_OPTIONS).toEqual({ color: false, width: 100 });
    const text = renderReport(SMALL_FLEET, 'table');
    expect(text).not.toMatch(ANSI_OR_CONTROL);
    expect(Math.max(...linesOf(text).map(columns))).toBeLessThanOrEqual(100);
    expect(renderReport(SMALL_FLEET, 'table', { color: true })).toContain('\u001b[');
  });
});
