import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/model/errors.js';
import { MAX_DOCUMENT_CHARS, prometheusJson } from '../../src/sources/prometheus-json.js';
import { AssignmentRecordingSink, CONTEXT, parseText } from './dcgm/parse.js';

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
    const { sink, result } = await parseText(prometheusJson, text);
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
    const { sink, result } = await parseText(prometheusJson, text);
    expect(result.records).toBe(4);
    expect(sink.samples).toEqual([
      { ref: REF_A, time: 1_700_000_000_000, utilizationPct: 10, powerW: 100.25 },
      { ref: REF_A, time: 1_700_000_060_000, utilizationPct: 20, powerW: 250.5 },
    ]);
  });

  it('reads the same answer whatever its chunks', async () => {
    const text = answer('matrix', [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, values: [[1700000000, '10'], [1700000060, '20']] }]);
    expect((await parseText(prometheusJson, text, [1])).sink).toEqual((await parseText(prometheusJson, text)).sink);
  });

  it('reads the exporter pod mapping as assignments at each timestamp', async () => {
    const labels = { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A, pod: 'trainer-0', namespace: 'ml', container: 'pytorch' };
    const { sink } = await parseText(prometheusJson, answer('matrix', [{ metric: labels, values: [[1700000000, '99'], [1700000060, '98']] }]));
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
    const { sink } = await parseText(prometheusJson, text);
    expect(sink.samples).toEqual([{ ref: REF_A, time: 1_700_000_000_000, memoryUtilizationPct: 7 }]);
    expect(sink.warnings).toEqual([]);
  });

  it('fails on an error answer with Prometheus\' own message', async () => {
    const text = '{"status":"error","errorType":"bad_data","error":"invalid parameter \\"query\\": 1:5: parse error: unexpected end of input"}';
    const attempt = parseText(prometheusJson, text);
    await expect(attempt).rejects.toThrow(InputError);
    await expect(attempt).rejects.toThrow('Prometheus answered with an error (bad_data): invalid parameter "query": 1:5: parse error: unexpected end of input');
  });

  it('warns that a VictoriaMetrics answer is partial, and passes on Prometheus warnings', async () => {
    const text = answer('vector', [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1700000000, '1'] }], {
      isPartial: true,
      warnings: ['PromQL info: metric might not be a counter'],
    });
    const { sink, result } = await parseText(prometheusJson, text);
    expect(result.records).toBe(1);
    expect(sink.warnings).toEqual([
      { location: 'warnings', message: 'Prometheus warned: PromQL info: metric might not be a counter' },
      { location: 'isPartial', message: 'the answer is partial (isPartial: true): some storage nodes did not answer, so series or samples may be missing' },
    ]);
  });

  it('skips series without __name__ with a warning, and fails when no series can be read', async () => {
    const named = { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1700000000, '5'] };
    const unnamed = { metric: { ...GPU_B }, value: [1700000000, '6'] };
    const { sink } = await parseText(prometheusJson, answer('vector', [named, unnamed]));
    expect(sink.samples).toEqual([{ ref: REF_A, time: 1_700_000_000_000, utilizationPct: 5 }]);
    expect(sink.warnings).toEqual([{
      location: 'data.result',
      message: '1 series without a __name__ label skipped: a function or aggregation in the query dropped the metric name, so their field is unknown',
    }]);

    await expect(parseText(prometheusJson, answer('vector', [unnamed]))).rejects.toThrow(
      'no DCGM series in this Prometheus answer: none of its 1 series has a __name__ label',
    );
  });

  it('fails on an answer of other metrics, and only warns on an empty one', async () => {
    const other = answer('vector', [{ metric: { __name__: 'up', job: 'node' }, value: [1700000000, '1'] }]);
    await expect(parseText(prometheusJson, other)).rejects.toThrow('none of its 1 series is a DCGM_FI_ metric');

    const { sink, result } = await parseText(prometheusJson, answer('matrix', []));
    expect(result.records).toBe(0);
    expect(sink.warnings).toEqual([{ location: 'data.result', message: 'the answer holds no series: the query matched nothing in its time range' }]);
  });

  it('fails on scalar answers and on text that is not JSON', async () => {
    await expect(parseText(prometheusJson, JSON.stringify({ status: 'success', data: { resultType: 'scalar', result: [1700000000, '1'] } })))
      .rejects.toThrow('a scalar answer has no per-GPU series');
    await expect(parseText(prometheusJson, '{"status":"success","data":{"resultType":"vector","result":[')).rejects.toThrow(/^not valid JSON/);
  });

  it('warns about malformed points and reads the rest', async () => {
    const text = answer('matrix', [{ metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, values: [[1700000000, 5], [1700000060, '6']] }]);
    const { sink, result } = await parseText(prometheusJson, text);
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
    const read = await parseText(prometheusJson, usual);
    expect(read.sink.warnings.map((warning) => warning.location)).toEqual(['warnings', 'data.result[1]', 'data.result[0]', 'data.result[0]']);
    for (const cuts of [undefined, [1], [7]]) {
      const again = await parseText(prometheusJson, sorted, cuts);
      expect(again.sink).toEqual(read.sink);
      expect(again.result).toEqual(read.result);
    }
  });

  it('reads the last data.result of an answer that repeats the key, as JSON.parse does', async () => {
    const first = { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_A }, value: [1700000000, '1'] };
    const last = { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU_B }, value: [1700000000, '2'] };
    const text = `{"status":"success","data":{"resultType":"vector","result":[${JSON.stringify(first)}],"result":[${JSON.stringify(last)}]}}`;
    const { sink } = await parseText(prometheusJson, text);
    expect(sink.samples).toEqual([{ ref: REF_B, time: 1_700_000_000_000, utilizationPct: 2 }]);
  });

  it(`refuses a document over ${MAX_DOCUMENT_CHARS / 1024 / 1024} MiB before parsing it`, async () => {
    const mebibyte = ' '.repeat(1024 * 1024);
    async function* huge(): AsyncIterable<string> {
      yield '{"status":"success","data":{"resultType":"vector","result":[]}}';
      // The same string object each time: the test itself stays small.
      for (let i = 0; i <= MAX_DOCUMENT_CHARS / mebibyte.length; i += 1) yield mebibyte;
    }
    await expect(prometheusJson.parse(huge(), CONTEXT, new AssignmentRecordingSink())).rejects.toThrow(/larger than 256 MiB/);
  });
});
