/**
 * Prometheus API answers of inference-server series: each point a serving reading, as the
 * same series' scrape line would be; the corpus's answers (inference-servers/promapi/): the
 * genuine one read, the edited and the Python-printed ones refused in one line that says why.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prometheusJsonParser } from '../../../src/sources/formats/prometheus-json.js';
import { servingMetrics } from '../../../src/sources/formats/serving-metrics.js';
import { InputError } from '../../../src/support/errors.js';
import { corpusPath } from '../../helpers/corpus.js';
import { parseWith } from '../../helpers/parse.js';

const parser = prometheusJsonParser();
const promapi = (name: string): string => readFileSync(corpusPath(`inference-servers/promapi/${name}`), 'utf8');

describe('Prometheus API answers of inference-server series', () => {
  it('reads the genuine vector answer (kube-prometheus-stack scraping vLLM V1) as its scrape line would read', async () => {
    const text = promapi('unknownrepo-kube-prometheus-vllm-v1-query-vector.json');
    expect(parser.detect(text.slice(0, 4096))).toBe(true);
    const { sink, result } = await parseWith(parser, text);
    expect(result.records).toBe(1);
    expect(sink.servingReadings).toHaveLength(1);
    const [reading] = sink.servingReadings;
    expect(reading).toMatchObject({ server: 'vllm', metric: 'running', kind: 'gauge', model: 'Qwen3-0.6B-FP8', namespace: expect.any(String), pod: 'qwen3-0-6b-fp8-9dc6bf7c5-4jkt4' });
    // The same series as a scrape line gives the same reading.
    const labels = JSON.parse(text) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    const { __name__: name, ...rest } = labels.data.result[0]!.metric;
    const line = `${name}{${Object.entries(rest).map(([key, value]) => `${key}="${value}"`).join(',')}} ${labels.data.result[0]!.value[1]} ${Math.round(labels.data.result[0]!.value[0] * 1000)}\n`;
    const scraped = await parseWith(servingMetrics, line);
    expect(scraped.sink.servingReadings).toEqual([reading]);
  });

  it('reads a range answer point by point, in each series\' time order', async () => {
    const text = JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [
      { metric: { __name__: 'vllm:request_success_total', finished_reason: 'stop', model_name: 'llama', pod: 'chat-0', instance: 'node-a:8000' }, values: [[1795161600, '100'], [1795161660, '160']] },
    ] } });
    const { sink } = await parseWith(parser, text);
    expect(sink.servingReadings.map((reading) => [reading.time, reading.value, reading.host])).toEqual([[1795161600000, 100, 'node-a'], [1795161660000, 160, 'node-a']]);
  });

  it('refuses the edited answer without a resultType by name, and the Python-printed one as no format it knows', async () => {
    await expect(parseWith(parser, promapi('production-stack-keda-tutorial-query-vector-TRIMMED.json'))).rejects.toThrow(new InputError('not a Prometheus query answer: no data.resultType', { file: 'input.txt', location: 'data' }));
    expect(parser.detect(promapi('ai-on-gke-pr937-gmp-vllm-query-vector-PYREPR.EXCERPT.txt').slice(0, 4096))).toBe(false);
  });
});
