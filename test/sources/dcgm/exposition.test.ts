import { describe, expect, it } from 'vitest';
import { LabelSetCache, scanExpositionLine } from '../../../src/sources/dcgm/exposition.js';
import type { ExpositionSample } from '../../../src/sources/dcgm/exposition.js';

function sampleOf(line: string): ExpositionSample {
  const scanned = scanExpositionLine(line);
  if (scanned.kind !== 'sample') throw new Error(`not a sample: ${JSON.stringify(scanned)}`);
  return scanned.sample;
}

function reasonOf(line: string): string {
  const scanned = scanExpositionLine(line);
  if (scanned.kind !== 'invalid') throw new Error(`not invalid: ${JSON.stringify(scanned)}`);
  return scanned.reason;
}

describe('scanExpositionLine', () => {
  it('refuses a number token past 64 characters at once, and reads a long but plain one', () => {
    // A million digits and a trailing x: the old pattern backtracked over every split of the digits.
    expect(reasonOf(`DCGM_FI_DEV_GPU_UTIL{gpu="0"} ${'1'.repeat(1_000_000)}x`)).toBe('value of DCGM_FI_DEV_GPU_UTIL is not a number: 1000001 characters, more than 64');
    expect(sampleOf(`m 1${'0'.repeat(50)}e-50`).value).toBe(`1${'0'.repeat(50)}e-50`);
    expect(reasonOf(`m ${'9'.repeat(40)}.${'9'.repeat(40)}`)).toMatch(/81 characters, more than 64/u);
  });

  it('refuses a series with a label value past 4,096 characters or more than 256 labels, and reads one at either cap', () => {
    expect(reasonOf(`m{gpu="0",pod="${'p'.repeat(4_097)}"} 1`)).toBe('label pod has a value of 4097 characters (at most 4096 are read; --input-limit label-chars=N reads more)');
    expect(sampleOf(`m{pod="${'p'.repeat(4_096)}"} 1`).labels.get('pod')).toHaveLength(4_096);
    const labels = (count: number): string => Array.from({ length: count }, (_, at) => `l${at}="v"`).join(',');
    expect(reasonOf(`m{${labels(257)}} 1`)).toBe('more than 256 labels (--input-limit labels=N reads more)');
    expect(sampleOf(`m{${labels(256)}} 1`).labels.size).toBe(256);
  });

  it('applies the caps it is given, the cache\'s where the line is read through one', () => {
    const line = 'm{gpu="0",UUID="GPU-1",pod="trainer"} 1';
    const low = { labelsPerSeries: 2, labelValueChars: 5 };
    const reason = (scanned: ReturnType<typeof scanExpositionLine>): string => (scanned.kind === 'invalid' ? scanned.reason : scanned.kind);
    expect(reason(scanExpositionLine(line, undefined, low))).toBe('label pod has a value of 7 characters (at most 5 are read; --input-limit label-chars=N reads more)');
    expect(reason(scanExpositionLine(line, undefined, { ...low, labelValueChars: 7 }))).toBe('more than 2 labels (--input-limit labels=N reads more)');
    expect(reason(scanExpositionLine(line, new LabelSetCache(low)))).toMatch(/^label pod has a value of 7 characters/u);
    // Raised past the defaults, a longer value is read.
    const long = `m{pod="${'p'.repeat(5_000)}"} 1`;
    expect(reason(scanExpositionLine(long, new LabelSetCache({ labelsPerSeries: 256, labelValueChars: 8_192 })))).toBe('sample');
  });

  it('reads a dcgm-exporter line: name, labels by name, value', () => {
    const sample = sampleOf('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-6d5c0ac5",modelName="Tesla T4"} 91');
    expect(sample).toEqual({
      series: 'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-6d5c0ac5",modelName="Tesla T4"}',
      name: 'DCGM_FI_DEV_GPU_UTIL',
      labels: new Map([['gpu', '0'], ['UUID', 'GPU-6d5c0ac5'], ['modelName', 'Tesla T4']]),
      value: '91',
      time: undefined,
    });
  });

  it('undoes the three escapes of label values and keeps other backslashes', () => {
    const sample = sampleOf(String.raw`m{a="say \"hi\"",b="C:\\dir",c="two\nlines",d="\d"} 1`);
    expect(sample.labels.get('a')).toBe('say "hi"');
    expect(sample.labels.get('b')).toBe('C:\\dir');
    expect(sample.labels.get('c')).toBe('two\nlines');
    expect(sample.labels.get('d')).toBe('\\d');
  });

  it('does not end a label value at an escaped quote, nor take braces and commas inside it as syntax', () => {
    const sample = sampleOf(String.raw`m{a="x\",b=\"y",c="{},"} 2`);
    expect([...sample.labels]).toEqual([['a', 'x",b="y'], ['c', '{},']]);
  });

  it('accepts blanks around tokens, a trailing comma, and no labels at all', () => {
    expect(sampleOf('  m { a = "1" , b="2", }\t3  ').labels).toEqual(new Map([['a', '1'], ['b', '2']]));
    expect(sampleOf('m 3')).toMatchObject({ name: 'm', value: '3' });
    expect(sampleOf('m{} 3').labels.size).toBe(0);
  });

  it('reads Prometheus 3 quoted names: a quoted metric name inside the braces and quoted label names', () => {
    const sample = sampleOf('{"DCGM_FI_DEV_GPU_UTIL", "k8s.pod"="p", gpu="0"} 5');
    expect(sample.name).toBe('DCGM_FI_DEV_GPU_UTIL');
    expect(sample.labels).toEqual(new Map([['k8s.pod', 'p'], ['gpu', '0']]));
  });

  it('reads an integer timestamp as epoch ms and an OpenMetrics decimal one as seconds', () => {
    expect(sampleOf('m{a="1"} 3 1700000000123').time).toBe(1_700_000_000_123);
    expect(sampleOf('m 3 1700000000.123').time).toBe(1_700_000_000_123);
  });

  it('accepts the values Go prints: decimals, exponents, NaN and infinities', () => {
    for (const value of ['68.244000', '1.5e+06', '-2', 'NaN', '+Inf', '-Inf']) {
      expect(sampleOf(`m ${value}`).value).toBe(value);
    }
  });

  it('classes comments and blank lines', () => {
    expect(scanExpositionLine('# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).').kind).toBe('comment');
    expect(scanExpositionLine('# EOF').kind).toBe('comment');
    expect(scanExpositionLine('   ').kind).toBe('blank');
  });

  it.each([
    ['* Connection #0 to host 192.168.1.16 left intact', 'not a metric line'],
    ['DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).', 'not a metric line'],
    ['apiVersion: v1', 'value v1 of apiVersion: is not a number'],
    ['m{a="1"}', 'no value after m'],
    ['m{a="1} 3', 'unterminated value of label a'],
    ['m{a=1} 3', 'expected a quoted value for label a'],
    ['m{a="1" b="2"} 3', 'expected , or } after label a'],
    ['m{a="1",a="2"} 3', 'label a given twice'],
    ['m 3 yesterday', 'timestamp yesterday of m is not a number'],
    ['m 3 4 5', 'unexpected text after the value of m'],
  ])('rejects %j: %s', (line, reason) => {
    expect(reasonOf(line)).toBe(reason);
  });
});
