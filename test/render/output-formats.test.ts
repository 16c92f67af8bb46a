import { describe, expect, it } from 'vitest';
import { formatOfFile, OUTPUT_FORMATS } from '../../src/render/index.js';
import { OUTPUT_EXTENSIONS } from '../../src/render/output-formats.js';

describe('formatOfFile', () => {
  it('reads every format from each of its suffixes, in any case', () => {
    for (const format of OUTPUT_FORMATS) {
      for (const suffix of OUTPUT_EXTENSIONS[format]) {
        expect(formatOfFile(`out/report${suffix}`)).toBe(format);
        expect(formatOfFile(`REPORT${suffix.toUpperCase()}`)).toBe(format);
      }
    }
  });

  it('prefers the longer suffix: x.sarif.json is SARIF, x.junit.xml JUnit', () => {
    expect(formatOfFile('x.sarif.json')).toBe('sarif');
    expect(formatOfFile('x.junit.xml')).toBe('junit');
  });

  it('names no format for a bare .xml, no extension, or an unknown one', () => {
    expect(formatOfFile('x.xml')).toBeUndefined();
    expect(formatOfFile('report')).toBeUndefined();
    expect(formatOfFile('report.pdf')).toBeUndefined();
  });
});
