import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/support/errors.js';
import { ANSWER_LIMITS, prometheusJson, prometheusJsonParser } from '../../../src/sources/formats/prometheus-json.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { corpusFiles } from '../../helpers/corpus.js';
import { chunked } from '../../helpers/sink.js';
import { AssignmentRecordingSink, CONTEXT, parseWith, type Parsed } from '../../helpers/parse.js';

const GPU_A = { gpu: '0', UUID: 'GPU-aaaa', pci_bus_id: '00000000:01:00.0', modelName: 'NVIDIA L40S', Hostname: 'node-1', instance: '10.0.0.5:9400', job: 'dcgm-exporter' };
const GPU_B = { ...GPU_A, gpu: '1', UUID: 'GPU-bbbb', pci_bus_id: '00000000:02:00.0' };
const REF_A = { host: 'node-1', uuid: 'GPU-aaaa', pciBusId: '00000000:01:00.0', index: 0 };
const REF_B = { host: 'node-1', uuid: 'GPU-bbbb', pciBusId: '00000000:02:00.0', index: 1 };

function answer(resultType: string, result: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ status: 'success', ...extra, data: { resultType, result } });
}

describe('prometheus-json detect', () => {
  it('claims success and error answers of the query API', () => {
    expect(prometheusJson.detect(answer('vector', []))).toBe(true);
    expect(prometheusJson.detect('{\n  "status": "success",\n  "isPartial": false,\n  "data": {\n    "resultType": "matrix",')).toBe(true);
    expect(prometheusJson.detect('{"status":"error","errorType":"bad_data","error":"parse error"}')).toBe(true);
  });

  it.each([
    ['a JSON object of another API', '{"status":"ok","items":[]}'],
    ['a Kubernetes pod list', '{"apiVersion":"v1","kind":"List","items":[{"status":{"phase":"Running"}}]}'],
    ['a JSON array', '[{"status":"success","data":{"resultType":"vector"}}]'],
    ['an exposition scrape', 'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 1\n'],
  ])('does not claim %s', (_name, head) => {
    expect(prometheusJson.detect(head)).toBe(false);
  });
});

describe('prometheus-json sendsAllAtEnd', () => {
  it('is true of every answer: its samples go out once it is read whole, so a large one is parsed without a worker', () => {
    const text = answer('matrix', []);
    expect(prometheusJson.sendsAllAtEnd?.(text, text)).toBe(true);
  });
});

describe('prometheus-json parse', () => {
  it('reads an instant vector: one sample per device at the evaluation time, values from strings', async () => {
    const text = answer('vector', [
      { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1775721747.082, '32'] },
      { metric: { __name__: 'DCGM_FI_DEV_FB_USED', ...GPU_A }, value: [1775721747.082, '2048'] },
      { metric: { __name__: 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', ...GPU_B }, value: [1775721747.082, '0.010000'] },
    ]);
    const { sink, result } = await parseWith(prometheusJson, text);
    expect(result.records).toBe(3);
    // 1775721747.082 s = 1775721747082 ms; 0.01 x 100 = 1 %
    expect(sink.samples).toEqual([
      { ref: REF_A, time: 1_775_721_747_082, utilizationPct: 32, memoryUsedMiB: 2048 },
      { ref: REF_B, time: 1_775_721_747_082, tensorActivePct: 1 },
    ]);
    expect(sink.devices).toEqual([
      { ref: REF_A, model: 'NVIDIA L40S' },
      { ref: REF_B, model: 'NVIDIA L40S' },
    ]);
  });

  it('groups a range matrix into one sample per device and timestamp, in time order', async () => {
    const text = answer('matrix', [
      { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, values: [[1700000000, '10'], [1700000060, '20']] },
      { metric: { __name__: 'DCGM_FI_DEV_POWER_USAGE', ...GPU_A }, values: [[1700000060, '250.5'], [1700000000, '100.25']] },
    ]);
    const { sink, result } = await parseWith(prometheusJson, text);
    expect(result.records).toBe(4);
    expect(sink.samples).toEqual([
      { ref: REF_A, time: 1_700_000_000_000, utilizationPct: 10, powerW: 100.25 },
      { ref: REF_A, time: 1_700_000_060_000, utilizationPct: 20, powerW: 250.5 },
    ]);
  });

  it('reads the same answer whatever its chunks', async () => {
    const text = answer('matrix', [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, values: [[1700000000, '10'], [1700000060, '20']] }]);
    expect((await parseWith(prometheusJson, text, [1])).sink).toEqual((await parseWith(prometheusJson, text)).sink);
  });

  it('sends series with the same steps merged by position, as it merges series whose points come in any order by time', async () => {
    const metrics = ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED', 'DCGM_FI_DEV_POWER_USAGE'];
    const value = fc.oneof(fc.integer({ min: 0, max: 100 }).map(String), fc.constant('NaN'));
    const answers = fc.record({
      steps: fc.uniqueArray(fc.integer({ min: 1_700_000_000, max: 1_700_001_000 }), { minLength: 1, maxLength: 5 }).map((times) => times.toSorted((a, b) => a - b)),
      devices: fc.array(fc.record({ gpu: fc.constantFrom('0', '1', '2'), metric: fc.constantFrom(...metrics), pod: fc.boolean(), seed: fc.array(value, { minLength: 5, maxLength: 5 }) }), { minLength: 1, maxLength: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(answers, async ({ steps, devices }) => {
        const series = devices.map(({ gpu, metric, pod, seed }) => ({
          metric: { __name__: metric, Hostname: 'h', UUID: `GPU-${gpu}`, gpu, ...(pod ? { pod: 'p', namespace: 'n' } : {}) },
          values: steps.map((time, position) => [time, seed[position]!]),
        }));
        const reversed = series.map((one) => ({ ...one, values: one.values.toReversed() }));
        const inOrder = await parseWith(prometheusJson, answer('matrix', series));
        const anyOrder = await parseWith(prometheusJson, answer('matrix', reversed));
        expect(inOrder.sink).toEqual(anyOrder.sink);
        expect(inOrder.result).toEqual(anyOrder.result);
      }),
      { numRuns: 200 },
    );
  });

  it('reads a series it scans as it reads one parsed whole: any labels, times, values and spacing', async () => {
    const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a"b', 'a\\b', 'é', '\u0001', ']},[{'));
    const time = fc.oneof(fc.integer({ min: 1, max: 2_000_000_000 }), fc.double({ min: 1, max: 2e9, noNaN: true }), fc.constantFrom(0, 1e21, -5));
    const value = fc.oneof(fc.integer({ min: 0, max: 1e6 }).map(String), fc.double({ min: 0, max: 1e6, noNaN: true }).map(String), text, fc.constantFrom('NaN', '+Inf', '1e3', '9223372036854775794'));
    const point = fc.oneof({ weight: 8, arbitrary: fc.tuple(time, value) }, { weight: 1, arbitrary: fc.constantFrom([1700000000], [1700000000, 5], 'x', null) });
    const series = fc.record({
      metric: fc.record({ __name__: fc.constantFrom('DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED', 'up'), UUID: fc.constantFrom('GPU-a', 'GPU-b'), gpu: fc.constantFrom('0', '1'), other: text }),
      values: fc.array(point, { maxLength: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(series, { minLength: 1, maxLength: 4 }), fc.constantFrom(undefined, 1, '\t'), async (result, indent) => {
        const scanned = JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }, null, indent);
        // A member after "values" is not the form the scan takes: the same series, parsed whole.
        const whole = JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: result.map((one) => ({ ...one, after: 0 })) } }, null, indent);
        const read = async (answerText: string): Promise<unknown> => {
          try {
            const { sink, result: parsed } = await parseWith(prometheusJson, answerText, [97]);
            return { sink, parsed };
          } catch (error) {
            return (error as Error).message;
          }
        };
        expect(await read(scanned)).toEqual(await read(whole));
      }),
      { numRuns: 300 },
    );
  });

  it('reads the exporter pod mapping as assignments at each timestamp', async () => {
    const labels = { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A, pod: 'trainer-0', namespace: 'ml', container: 'pytorch' };
    const { sink } = await parseWith(prometheusJson, answer('matrix', [{ metric: labels, values: [[1700000000, '99'], [1700000060, '98']] }]));
    expect(sink.assignments).toEqual([
      { ref: REF_A, time: 1_700_000_000_000, namespace: 'ml', pod: 'trainer-0', container: 'pytorch' },
      { ref: REF_A, time: 1_700_000_060_000, namespace: 'ml', pod: 'trainer-0', container: 'pytorch' },
    ]);
  });

  it('leaves NaN and DCGM blanks out', async () => {
    const text = answer('vector', [
      { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1700000000, 'NaN'] },
      { metric: { __name__: 'DCGM_FI_DEV_FB_USED', ...GPU_A }, value: [1700000000, '9223372036854775794'] },
      { metric: { __name__: 'DCGM_FI_DEV_MEM_COPY_UTIL', ...GPU_A }, value: [1700000000, '7'] },
    ]);
    const { sink } = await parseWith(prometheusJson, text);
    expect(sink.samples).toEqual([{ ref: REF_A, time: 1_700_000_000_000, memoryUtilizationPct: 7 }]);
    expect(sink.warnings).toEqual([]);
  });

  it('fails on an error answer with Prometheus\' own message', async () => {
    const text = '{"status":"error","errorType":"bad_data","error":"invalid parameter \\"query\\": 1:5: parse error: unexpected end of input"}';
    const attempt = parseWith(prometheusJson, text);
    await expect(attempt).rejects.toThrow(InputError);
    await expect(attempt).rejects.toThrow('Prometheus answered with an error (bad_data): invalid parameter "query": 1:5: parse error: unexpected end of input');
  });

  it('warns that a VictoriaMetrics answer is partial, and passes on Prometheus warnings', async () => {
    const text = answer('vector', [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1700000000, '1'] }], {
      isPartial: true,
      warnings: ['PromQL info: metric might not be a counter'],
    });
    const { sink, result } = await parseWith(prometheusJson, text);
    expect(result.records).toBe(1);
    expect(sink.warnings).toEqual([
      { location: 'warnings', message: 'Prometheus warned: PromQL info: metric might not be a counter' },
      { location: 'isPartial', message: 'the answer is partial (isPartial: true): some storage nodes did not answer, so series or samples may be missing' },
    ]);
  });

  it('skips series without __name__ with a warning, and fails when no series can be read', async () => {
    const named = { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1700000000, '5'] };
    const unnamed = { metric: { ...GPU_B }, value: [1700000000, '6'] };
    const { sink } = await parseWith(prometheusJson, answer('vector', [named, unnamed]));
    expect(sink.samples).toEqual([{ ref: REF_A, time: 1_700_000_000_000, utilizationPct: 5 }]);
    expect(sink.warnings).toEqual([{
      location: 'data.result',
      message: '1 series without a __name__ label skipped: a function or aggregation in the query dropped the metric name, so their field is unknown',
    }]);

    await expect(parseWith(prometheusJson, answer('vector', [unnamed]))).rejects.toThrow(
      'no DCGM series in this Prometheus answer: none of its 1 series has a __name__ label',
    );
  });

  it('fails on an answer of other metrics, and only warns on an empty one', async () => {
    const other = answer('vector', [{ metric: { __name__: 'up', job: 'node' }, value: [1700000000, '1'] }]);
    await expect(parseWith(prometheusJson, other)).rejects.toThrow('none of its 1 series is a DCGM_FI_ metric');

    const { sink, result } = await parseWith(prometheusJson, answer('matrix', []));
    expect(result.records).toBe(0);
    expect(sink.warnings).toEqual([{ location: 'data.result', message: 'the answer holds no series: the query matched nothing in its time range' }]);
  });

  it('fails on scalar answers and on text that is not JSON', async () => {
    await expect(parseWith(prometheusJson, JSON.stringify({ status: 'success', data: { resultType: 'scalar', result: [1700000000, '1'] } })))
      .rejects.toThrow('a scalar answer has no per-GPU series');
    await expect(parseWith(prometheusJson, '{"status":"success","data":{"resultType":"vector","result":[')).rejects.toThrow(/^not valid JSON/);
  });

  it('warns about malformed points and reads the rest', async () => {
    const text = answer('matrix', [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, values: [[1700000000, 5], [1700000060, '6']] }]);
    const { sink, result } = await parseWith(prometheusJson, text);
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([{ ref: REF_A, time: 1_700_000_060_000, utilizationPct: 6 }]);
    expect(sink.warnings).toEqual([{ location: 'data.result[0]', message: 'DCGM_FI_DEV_GPU_UTIL: [1700000000,5] is not a [time, "value"] pair; skipped' }]);
  });

  it('reads an answer whose keys are sorted (jq -S: result before resultType, warnings before data) the same', async () => {
    const result = [
      { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, values: [[1700000000, '10'], [1700000060, 'x'], [1700000120, 7]] },
      { values: [] },
      { metric: { __name__: 'DCGM_FI_DEV_FB_USED', ...GPU_B }, values: [[1700000000, '512']] },
    ];
    const usual = answer('matrix', result, { warnings: ['w'] });
    const sorted = JSON.stringify({ data: { result, resultType: 'matrix' }, status: 'success', warnings: ['w'] }, null, 1);
    const read = await parseWith(prometheusJson, usual);
    expect(read.sink.warnings.map((warning) => warning.location)).toEqual(['warnings', 'data.result[1]', 'data.result[0]', 'data.result[0]']);
    for (const cuts of [undefined, [1], [7]]) {
      const again = await parseWith(prometheusJson, sorted, cuts);
      expect(again.sink).toEqual(read.sink);
      expect(again.result).toEqual(read.result);
    }
  });

  it('reads the last data.result of an answer that repeats the key, as JSON.parse does', async () => {
    const first = { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1700000000, '1'] };
    const last = { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_B }, value: [1700000000, '2'] };
    const text = `{"status":"success","data":{"resultType":"vector","result":[${JSON.stringify(first)}],"result":[${JSON.stringify(last)}]}}`;
    const { sink } = await parseWith(prometheusJson, text);
    expect(sink.samples).toEqual([{ ref: REF_B, time: 1_700_000_000_000, utilizationPct: 2 }]);
  });

  it('refuses an answer with more text outside data.result than the limit, or a longer series', async () => {
    const mebibyte = ' '.repeat(1024 * 1024);
    async function* huge(): AsyncIterable<string> {
      yield '{"status":"success","data":{"resultType":"vector","result":[]}}';
      // The same string object each time: the test itself stays small.
      for (let i = 0; i <= ANSWER_LIMITS.maxEnvelopeChars / mebibyte.length; i += 1) yield mebibyte;
    }
    await expect(prometheusJson.parse(huge(), CONTEXT, new AssignmentRecordingSink())).rejects.toThrow('more than 16 MiB of text outside data.result');

    const parser = prometheusJsonParser({ ...ANSWER_LIMITS, maxSeriesChars: 1000 });
    const long = answer('matrix', [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, values: Array.from({ length: 100 }, (_, step) => [1700000000 + step, '1']) }]);
    await expect(parseWith(parser, long, [100])).rejects.toThrow('a series of data.result is longer than 0 MiB of text: query a coarser step');
  });
});

describe('prometheus-json caps of --input-limit', () => {
  const limits = (given: Partial<NonNullable<SourceContext['limits']>>): NonNullable<SourceContext['limits']> => ({ labelsPerSeries: 256, labelValueChars: 4096, seriesPerAnswer: 500_000, filesPerRun: 20_000, ...given });
  const text = answer('vector', [
    { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A, pod: 'p'.repeat(30) }, value: [1775721747, '32'] },
    { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_B }, value: [1775721747, '64'] },
  ]);

  it('skips a series past a label cap with the reason, read once or twice', async () => {
    for (const parse of [parseOnce, parseTwice]) {
      const { sink } = await parse(text, undefined, prometheusJson, { limits: limits({ labelValueChars: 29 }) });
      expect(sink.samples).toEqual([{ ref: REF_B, time: 1_775_721_747_000, utilizationPct: 64 }]);
      expect(sink.warnings).toEqual([{ location: 'data.result[0]', message: 'label pod has a value of 30 characters (at most 29 are read; --input-limit label-chars=N reads more); skipped' }]);
    }
  });

  it('names the cap when every series passes one', async () => {
    await expect(parseTwice(text, undefined, prometheusJson, { limits: limits({ labelsPerSeries: 3 }) }))
      .rejects.toThrow('no DCGM series in this Prometheus answer: 2 of its 2 series skipped for a label cap, the first at data.result[0]: more than 3 labels (--input-limit labels=N reads more)');
  });

  it('refuses an answer of more series than the cap, at the first past it', async () => {
    for (const parse of [parseOnce, parseTwice]) {
      await expect(parse(text, undefined, prometheusJson, { limits: limits({ seriesPerAnswer: 1 }) })).rejects.toThrow(new InputError(
        'more than 1 series in data.result: save the answer of a narrower query, or read more with --input-limit series=N',
        { file: 'input.txt', location: 'data.result[1]' },
      ));
    }
    expect((await parseTwice(text, undefined, prometheusJson, { limits: limits({ seriesPerAnswer: 2 }) })).sink.samples).toHaveLength(2);
  });
});

/** Parses `text` as standard input: read once. */
function parseOnce(text: string, chunkSizes?: number[], parser = prometheusJson, context: Partial<SourceContext> = {}): Promise<Parsed> {
  return parseWith(parser, text, chunkSizes, context);
}

/** Parses `text` as a file, which is read twice (SourceContext.reread), in the same chunks both times. */
function parseTwice(text: string, chunkSizes?: number[], parser = prometheusJson, context: Partial<SourceContext> = {}): Promise<Parsed> {
  return parseWith(parser, text, chunkSizes, { reread: () => chunked(text, chunkSizes), ...context });
}

/**
 * What a parse sent, device by device, and its warnings in a fixed order: a file read twice
 * sends a device once its series are read, and says what reading finds as it reads.
 */
function sentOf({ sink, result }: Parsed): unknown {
  const byDevice = <T extends { ref: { uuid?: string } }>(calls: T[]): T[] => calls.toSorted((a, b) => (a.ref.uuid ?? '').localeCompare(b.ref.uuid ?? ''));
  const warnings = sink.warnings.map((warning) => `${warning.location}: ${warning.message}`).sort();
  return { samples: byDevice(sink.samples), devices: byDevice(sink.devices), assignments: byDevice(sink.assignments), warnings, result };
}

/** `value` with the keys of every object in order, as `jq -S` writes them. */
function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, item]) => [key, withSortedKeys(item)]));
}

/** Labels of GPU `index` on host `host`. */
function gpu(host: string, index: number): Record<string, string> {
  return { Hostname: host, UUID: `GPU-${host}-${index}`, gpu: String(index) };
}

/** A range answer of two steps for each GPU and metric, in the order given. */
function rangeAnswer(series: [labels: Record<string, string>, metric: string][]): string {
  return answer('matrix', series.map(([labels, name], position) => ({ metric: { __name__: name, ...labels }, values: [[1700000000, String(position)], [1700000060, String(position + 1)]] })));
}

describe('prometheus-json read twice (a file)', () => {
  const grouped = rangeAnswer([
    [gpu('h1', 0), 'DCGM_FI_DEV_FB_USED'], [gpu('h1', 0), 'DCGM_FI_DEV_GPU_UTIL'],
    [gpu('h1', 1), 'DCGM_FI_DEV_FB_USED'], [gpu('h1', 1), 'DCGM_FI_DEV_GPU_UTIL'],
    [gpu('h2', 0), 'DCGM_FI_DEV_FB_USED'], [gpu('h2', 0), 'DCGM_FI_DEV_GPU_UTIL'],
  ]);
  const byMetric = rangeAnswer([
    [gpu('h1', 0), 'DCGM_FI_DEV_FB_USED'], [gpu('h1', 1), 'DCGM_FI_DEV_FB_USED'], [gpu('h2', 0), 'DCGM_FI_DEV_FB_USED'],
    [gpu('h1', 0), 'DCGM_FI_DEV_GPU_UTIL'], [gpu('h1', 1), 'DCGM_FI_DEV_GPU_UTIL'], [gpu('h2', 0), 'DCGM_FI_DEV_GPU_UTIL'],
  ]);
  const odd = answer('matrix', [
    { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A, pod: 'p', namespace: 'n' }, values: [[1700000000, '10'], [1700000060, 'x'], [1700000120, 7]] },
    { values: [] },
    { metric: { ...GPU_B }, value: [1700000000, '6'] },
    { metric: { __name__: 'DCGM_FI_DEV_FB_USED', ...GPU_B }, values: [[1700000000, '512']] },
    { metric: { __name__: 'DCGM_FI_DEV_FB_USED', ...GPU_A }, value: [1700000000, '1'] },
  ], { warnings: ['w'], isPartial: true });

  it.each([
    ['grouped by device', grouped],
    ['grouped by metric', byMetric],
    ['with odd series and points, unnamed series and an envelope that warns', odd],
    ['with sorted keys (jq -S)', JSON.stringify(withSortedKeys(JSON.parse(odd)), null, 1)],
  ])('sends what a single read sends: an answer %s', async (_name, text) => {
    for (const cuts of [undefined, [1], [17, 3]]) expect(sentOf(await parseTwice(text, cuts))).toEqual(sentOf(await parseWith(prometheusJson, text, cuts)));
  });

  it.each(corpusFiles('prometheus-api', (name) => name.endsWith('.json')))('sends what a single read sends: %s', async (file) => {
    const text = readFileSync(file, 'utf8');
    expect(sentOf(await parseTwice(text, [4096]))).toEqual(sentOf(await parseWith(prometheusJson, text, [4096])));
  });

  it('sends each device once its last series is read, before reading on', async () => {
    const events: string[] = [];
    const sink = new AssignmentRecordingSink();
    sink.sample = (sample) => void events.push(`sample ${sample.ref.uuid ?? ''}`);
    // The second read in pieces of a series each: a device is sent once the piece that ends its
    // last series is read.
    const pieces = grouped.split('{"metric"');
    async function* secondRead(): AsyncIterable<string> {
      for (const [position, piece] of pieces.entries()) {
        events.push(`piece ${position}`);
        yield position === 0 ? piece : `{"metric"${piece}`;
      }
    }
    await prometheusJson.parse(chunked(grouped), { ...CONTEXT, reread: secondRead }, sink);
    expect(events).toEqual([
      'piece 0', 'piece 1', 'piece 2',
      'sample GPU-h1-0', 'sample GPU-h1-0',
      'piece 3', 'piece 4',
      'sample GPU-h1-1', 'sample GPU-h1-1',
      'piece 5', 'piece 6',
      'sample GPU-h2-0', 'sample GPU-h2-0',
    ]);
  });

  it('holds one device at a time where series come device by device, and refuses an answer that would hold more', async () => {
    // A series' 2 values (16 bytes) and its times (16 bytes, shared by the series after it): 48 bytes a device.
    const parser = prometheusJsonParser({ ...ANSWER_LIMITS, maxHeldBytes: 48 });
    expect((await parseTwice(grouped, undefined, parser)).result.records).toBe(12);
    await expect(parseTwice(grouped, undefined, prometheusJsonParser({ ...ANSWER_LIMITS, maxHeldBytes: 40 }))).rejects.toThrow(
      'more than 0 MiB of points would be held at once, read in 3 passes of devices: query a shorter range or a coarser step',
    );
    await expect(parseWith(parser, grouped)).rejects.toThrow("read once (from standard input), the answer's points are held until it ends");
  });

  it('reads series that come metric by metric in passes of as many devices as fit, sending what a single read sends', async () => {
    const counted = (limit: number): Promise<[reads: number, parsed: Parsed]> => {
      let reads = 0;
      const parser = prometheusJsonParser({ ...ANSWER_LIMITS, maxHeldBytes: limit });
      return parseTwice(byMetric, undefined, parser, { reread: () => ((reads += 1), chunked(byMetric)) }).then((parsed) => [reads, parsed]);
    };
    const single = sentOf(await parseWith(prometheusJson, byMetric));
    const seriesChars = (JSON.parse(byMetric) as { data: { result: unknown[] } }).data.result.map((series) => JSON.stringify(series).length);
    // Each of the 3 devices has 2 series; all 3 fit in one pass, 2 in the first of two, or 1 a pass.
    for (const [limit, passes] of [[ANSWER_LIMITS.maxHeldBytes, 1], [4 * Math.max(...seriesChars), 2], [2 * Math.max(...seriesChars), 3]] as const) {
      const [reads, parsed] = await counted(limit);
      expect(reads, `limit ${limit}`).toBe(passes);
      expect(sentOf(parsed)).toEqual(single);
    }
  });

  it('checks the envelope before it sends anything', async () => {
    const sink = new AssignmentRecordingSink();
    const failing = grouped.replace('"status":"success"', '"status":"error","errorType":"timeout","error":"query timed out"');
    await expect(prometheusJson.parse(chunked(failing), { ...CONTEXT, reread: () => chunked(failing) }, sink)).rejects.toThrow('Prometheus answered with an error (timeout)');
    expect(sink.samples).toEqual([]);
  });

  it('reads the last data.result of an answer that repeats the key, as a single read does', async () => {
    const text = `{"status":"success","data":{"resultType":"matrix","result":${JSON.parse(byMetric).data.result.length > 0 ? JSON.stringify(JSON.parse(byMetric).data.result) : '[]'},"result":${JSON.stringify(JSON.parse(grouped).data.result.slice(0, 2))}}}`;
    const twice = await parseTwice(text);
    expect(sentOf(twice)).toEqual(sentOf(await parseWith(prometheusJson, text)));
    expect(twice.sink.samples.map((sample) => sample.ref.uuid)).toEqual(['GPU-h1-0', 'GPU-h1-0']);
  });

  it('fails, naming the series, when the file changed between its two reads', async () => {
    const message = 'the file changed while it was read (its two reads differ): read it again once it is complete';
    const renamed = grouped.replaceAll('"GPU-h1-1"', '"GPU-h9-9"');
    const attempt = parseTwice(grouped, undefined, undefined, { reread: () => chunked(renamed) });
    await expect(attempt).rejects.toThrow(message);
    await expect(attempt).rejects.toMatchObject({ file: CONTEXT.ref, location: 'data.result[2]' });
    const cut = parseTwice(grouped, undefined, undefined, { reread: () => chunked(grouped.slice(0, grouped.indexOf('"GPU-h2-0"'))) });
    await expect(cut).rejects.toMatchObject({ message, location: 'data.result[4]' });
  });

  it('parses each series whole in the second read: a point the first read did not parse can still be invalid', async () => {
    const invalid = grouped.replace('[1700000060,"3"]', '[1700000060,"3"x]');
    const attempt = parseTwice(invalid);
    await expect(attempt).rejects.toThrow(/^not valid JSON: /);
    await expect(attempt).rejects.toMatchObject({ location: 'data.result[2]' });
  });

});
