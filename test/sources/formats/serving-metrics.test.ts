/**
 * Inference-server metrics: every capture of ../shared/corpus/inference-servers is detected
 * as such and parses; what each server calls a metric lands on the same ServingMetric; a cut
 * excerpt is said, never read as a figure; chunk boundaries change nothing.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServingSample } from '../../../src/model/observations.js';
import { detectParser } from '../../../src/sources/index.js';
import { servingMetrics } from '../../../src/sources/formats/serving-metrics.js';
import { corpusFiles, corpusPath } from '../../helpers/corpus.js';
import { chunked, RecordingSink } from '../../helpers/sink.js';

/** A sink that keeps the serving readings and the warnings. */
class ServingSink extends RecordingSink {
  readonly readings: ServingSample[] = [];
  serving(sample: ServingSample): void {
    this.readings.push(sample);
  }
}

async function parse(file: string, chunkSizes?: number[]): Promise<{ sink: ServingSink; records: number }> {
  const sink = new ServingSink();
  const { records } = await servingMetrics.parse(chunked(readFileSync(file, 'utf8'), chunkSizes), { ref: path.basename(file), host: 'file-host', timeZone: 'UTC' }, sink);
  return { sink, records };
}

const SERVER_FOLDERS = ['vllm', 'triton', 'tgi', 'sglang', 'other'];
const CAPTURES = SERVER_FOLDERS.flatMap((folder) => corpusFiles(path.join('inference-servers', folder), (name) => name.endsWith('.prom')).map((file) => [path.join(folder, path.basename(file)), file] as const));

describe('every capture of the corpus', () => {
  it.each(CAPTURES)('%s is detected as inference-server metrics and parses', async (_name, file) => {
    expect(detectParser(readFileSync(file, 'utf8').slice(0, 65_536))?.format).toBe('serving-metrics');
    const { sink, records } = await parse(file);
    expect(records).toBe(sink.readings.length);
    for (const warning of sink.warnings) expect(warning.location).toMatch(/^line \d+$/u);
  });

  it('reads the same readings whatever the chunk boundaries', async () => {
    const file = corpusPath('inference-servers', 'tgi', 'datadog-tgi-3.x-openhermes-mistral7b.prom');
    expect((await parse(file, [7, 131, 1])).sink.readings).toEqual((await parse(file)).sink.readings);
  });
});

const reading = (readings: readonly ServingSample[], metric: ServingSample['metric'], kind: ServingSample['kind']): ServingSample[] => readings.filter((sample) => sample.metric === metric && sample.kind === kind);

describe('what each server calls a metric', () => {
  it('vLLM V0: requests by finished reason, tokens, the cache share as a fraction, the latency histograms', async () => {
    const { sink } = await parse(corpusPath('inference-servers', 'vllm', 'datadog-v0-0.5-opt125m.prom'));
    expect(new Set(sink.readings.map((sample) => sample.instance))).toEqual(new Set(['vllm file-host facebook/opt-125m']));
    expect(reading(sink.readings, 'prompt-tokens', 'counter').map((sample) => sample.value)).toEqual([5]);
    expect(reading(sink.readings, 'generation-tokens', 'counter').map((sample) => sample.value)).toEqual([7]);
    expect(reading(sink.readings, 'e2e-latency', 'bucket').at(-1)).toMatchObject({ bound: Infinity, value: 1 });
    expect(reading(sink.readings, 'ttft', 'sum')[0]!.value).toBeCloseTo(0.31326723098754883, 15);
  });

  it('vLLM V1: kv_cache_usage_perc, and the engine label naming a data-parallel engine of its own', async () => {
    const { sink } = await parse(corpusPath('inference-servers', 'vllm', 'unknownrepo-openshift-kserve-workshop-v1-engine-label-head40.EXCERPT.prom'));
    expect(reading(sink.readings, 'kv-cache-usage', 'gauge')).toHaveLength(1);
    expect(sink.readings.every((sample) => sample.instance === 'vllm file-host llama-vllm-single engine 0')).toBe(true);
  });

  it('NIM: the vLLM names without a prefix', async () => {
    const { sink } = await parse(corpusPath('inference-servers', 'other', 'datadog-nvidia-nim-llama3.1-8b.prom'));
    expect(new Set(sink.readings.map((sample) => sample.server))).toEqual(new Set(['nim']));
    expect(reading(sink.readings, 'ttft', 'bucket').length).toBeGreaterThan(5);
  });

  it('TGI: counters without _total, token counts as histogram sums (662 prompt, 3,423 generated tokens)', async () => {
    const { sink } = await parse(corpusPath('inference-servers', 'tgi', 'datadog-tgi-3.x-openhermes-mistral7b.prom'));
    expect(reading(sink.readings, 'requests', 'counter').map((sample) => sample.value)).toEqual([109]);
    expect(reading(sink.readings, 'prompt-tokens', 'sum').map((sample) => sample.value)).toEqual([662]);
    expect(reading(sink.readings, 'generation-tokens', 'sum').map((sample) => sample.value)).toEqual([3423]);
    expect(reading(sink.readings, 'failed-requests', 'counter')).toMatchObject([{ series: 'err=validation', value: 2 }]);
  });

  it('Triton: per model and version, the cumulative microseconds and the summary quantiles', async () => {
    const { sink } = await parse(corpusPath('inference-servers', 'triton', 'datadog-triton-t4-8models.prom'));
    const densenet = sink.readings.filter((sample) => sample.model === 'densenet_onnx');
    expect(reading(densenet, 'request-duration-us', 'counter').map((sample) => sample.value)).toEqual([1_327_965]);
    expect(reading(densenet, 'request-summary-us', 'quantile').map((sample) => sample.bound)).toEqual([0.5, 0.9, 0.95, 0.99, 0.999]);
  });

  it('SGLang: its own names, the tensor-parallel rank one server', async () => {
    const { sink } = await parse(corpusPath('inference-servers', 'sglang', 'datadog-sglang-0.5.10-opt125m-trimmed.prom'));
    expect(new Set(sink.readings.map((sample) => sample.instance))).toEqual(new Set(['sglang file-host facebook/opt-125m']));
    expect(reading(sink.readings, 'waiting', 'gauge')).toHaveLength(1);
  });
});

describe('excerpts', () => {
  it('says where a pasted excerpt is cut, and reads nothing from the cut line', async () => {
    const { sink } = await parse(corpusPath('inference-servers', 'vllm', 'issue-vllm-6337-v0-0.5.1-ttft-buckets-all-equal.EXCERPT.prom'));
    expect(sink.warnings.some((warning) => warning.message.startsWith('skipped a line that is not a metric line'))).toBe(true);
  });

  it('says so when a page of a known server holds no reading gpu-audit uses', async () => {
    const { sink, records } = await parse(corpusPath('inference-servers', 'vllm', 'issue-vllm-pr22227-v1-dp-engine1-qwen3-8b.EXCERPT.prom'));
    expect(records).toBe(0);
    expect(sink.warnings.at(-1)!.message).toBe('no inference-server reading gpu-audit knows in this page');
  });
});
