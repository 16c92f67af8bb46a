import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/support/errors.js';
import { clusterMatcher, parseSelector, seriesSelector } from '../../../../src/sources/live/prometheus/selector.js';

describe('--selector', () => {
  it('takes label matchers in braces with every operator and quote style', () => {
    expect(parseSelector('{namespace="ml"}')).toEqual(['namespace="ml"']);
    expect(parseSelector(` { namespace = "ml" , Hostname=~'gpu-.*', pod!~\`tmp-.*\`, container!="" } `))
      .toEqual(['namespace="ml"', "Hostname=~'gpu-.*'", 'pod!~`tmp-.*`', 'container!=""']);
    expect(parseSelector('{}')).toEqual([]);
    // A trailing comma is valid PromQL.
    expect(parseSelector('{a="1",}')).toEqual(['a="1"']);
    // Escaped quotes stay inside the string.
    expect(parseSelector('{a="x\\"} or vector(1) {"}')).toEqual(['a="x\\"} or vector(1) {"']);
  });

  it.each([
    ['namespace="ml"', /not in braces/],
    ['up{job="x"}', /not in braces/],
    ['{namespace="ml"} or vector(1)', /not in braces|cannot read/],
    ['{namespace="ml"}[5m]', /not in braces/],
    ['{namespace=ml}', /cannot read a matcher/],
    ['{namespace="ml" pod="x"}', /separated by commas/],
    ['{__name__="DCGM_FI_DEV_GPU_UTIL"}', /metric name is chosen by gpu-audit/],
    ['{1abc="x"}', /cannot read a matcher/],
  ])('refuses %s', (text, why) => {
    expect(() => parseSelector(text)).toThrow(InputError);
    expect(() => parseSelector(text)).toThrow(why);
  });

  it('adds the matchers to one metric, or to a set of metrics by name', () => {
    expect(seriesSelector(['DCGM_FI_DEV_GPU_UTIL'], [])).toBe('DCGM_FI_DEV_GPU_UTIL');
    expect(seriesSelector(['DCGM_FI_DEV_GPU_UTIL'], ['namespace="ml"'])).toBe('DCGM_FI_DEV_GPU_UTIL{namespace="ml"}');
    expect(seriesSelector(['A', 'B'], ['namespace="ml"'])).toBe('{__name__=~"A|B",namespace="ml"}');
  });
});

describe('--prometheus-cluster-label', () => {
  it('matches a bare name on the label cluster, LABEL=VALUE on that label, the value quoted as PromQL reads it', () => {
    expect(clusterMatcher('prod')).toBe('cluster="prod"');
    expect(clusterMatcher('k8s_cluster=eu-1')).toBe('k8s_cluster="eu-1"');
    expect(clusterMatcher('cluster=a"b\\c')).toBe('cluster="a\\"b\\\\c"');
  });

  it.each(['', 'bad-label=x', '__name__=up', 'cluster='])('refuses %j', (text) => {
    expect(() => clusterMatcher(text)).toThrow(InputError);
  });
});

