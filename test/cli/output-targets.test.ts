/**
 * Where audit, check and report write: stdout in --format; one -o in --format where typed,
 * else in its extension's format; several -o each in its extension's format; what cannot be
 * told apart refused in one line.
 */
import { describe, expect, it } from 'vitest';
import { outputTargets } from '../../src/cli/output-targets.js';
import { InputError } from '../../src/support/index.js';

describe('outputTargets', () => {
  it('writes --format to stdout without -o, and with -o -', () => {
    expect(outputTargets({ format: 'markdown' }, true)).toEqual([{ format: 'markdown', file: undefined }]);
    expect(outputTargets({ format: 'json', output: ['-'] }, true)).toEqual([{ format: 'json', file: undefined }]);
  });

  it('takes one -o FILE in the typed --format, whatever its extension (-f json -o report.out)', () => {
    expect(outputTargets({ format: 'json', output: ['report.md'] }, true)).toEqual([{ format: 'json', file: 'report.md' }]);
  });

  it('takes one -o FILE in its extension\'s format when --format was not typed, else in the default', () => {
    expect(outputTargets({ format: 'table', output: ['report.json'] }, false)).toEqual([{ format: 'json', file: 'report.json' }]);
    expect(outputTargets({ format: 'table', output: ['report.out'] }, false)).toEqual([{ format: 'table', file: 'report.out' }]);
  });

  it('writes several -o FILE each in the format of its extension, in the order given', () => {
    const files = ['r.json', 'r.sarif', 'ci/gpu-audit.junit.xml', 'summary.md', 'r.html', 'gpus.csv', 'r.txt', 'r.sarif.json'];
    expect(outputTargets({ format: 'table', output: files }, false).map((target) => target.format)).toEqual(['json', 'sarif', 'junit', 'markdown', 'html', 'csv', 'table', 'sarif']);
  });

  it.each([
    ['an extension that names no format', ['r.json', 'r.xml'], '-o r.xml: with several -o the format comes from the extension, and this one names none; use one of .txt table, .json json, .md markdown, .html html, .csv csv, .junit.xml junit, .sarif sarif, .comment.md github-comment'],
    ['the same file twice', ['r.json', './r.json'], '-o ./r.json given twice: each output needs its own file'],
    ['stdout among files', ['r.json', '-'], '-o - (stdout) with several -o: write each output to a file'],
  ])('refuses %s', (_case, output, message) => {
    expect(() => outputTargets({ format: 'table', output }, false)).toThrow(new InputError(message));
  });

  it('refuses --format with several -o: it could apply to none of them', () => {
    expect(() => outputTargets({ format: 'json', output: ['a.json', 'b.md'] }, true)).toThrow(/--format with several -o/u);
  });
});
