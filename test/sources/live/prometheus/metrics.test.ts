/**
 * The labels a live-Prometheus audit groups pod aggregates by are the ones the file sources
 * read a pod from (../dcgm/labels.ts), in the same order of preference.
 */
import { describe, expect, it } from 'vitest';
import { POD_LABELS, POD_NAME_LABELS } from '../../../../src/sources/live/prometheus/metrics.js';

describe('pod labels of dcgm-exporter series', () => {
  it('group by every spelling of the pod mapping, best first, then the Prometheus Operator target labels', () => {
    expect(POD_LABELS).toEqual([
      'exported_pod', 'exported_namespace', 'exported_container',
      'pod', 'namespace', 'container',
      'pod_name', 'pod_namespace', 'container_name',
      'service', 'endpoint',
    ]);
  });

  it('mark a series as carrying a pod mapping by the pod label of each spelling', () => {
    expect(POD_NAME_LABELS).toEqual(['exported_pod', 'pod', 'pod_name']);
  });
});
