import { describe, expect, it } from 'vitest';
import { COMPUTE_LADDER } from '../../../../src/analysis/compute-ladder.js';
import { allMetricNames, metricNamesOf, PUSH_DOWN_METRICS } from '../../../../src/sources/live/prometheus/metrics.js';
import {
  RANGE_RULE_PROBE, bucketComputeQuery, bucketMemoryMaxQuery, deviceChunkQuery, pcieQuantileQuery, quantileQuery, rangeRuleOf, signalChunkQuery,
} from '../../../../src/sources/live/prometheus/queries.js';

const BY = 'by (UUID, uuid, gpu, pci_bus_id, Hostname, hostname, modelName, GPU_I_ID, GPU_I_PROFILE, DCGM_FI_DRIVER_VERSION)';

describe('metrics read', () => {
  it('lists the idle signals in the order of the compute ladder', () => {
    const ladder = COMPUTE_LADDER.map((rung) => rung.basis).filter((basis) => basis !== 'processes');
    expect(PUSH_DOWN_METRICS.flatMap((metric) => (metric.basis === undefined ? [] : [metric.basis]))).toEqual(ladder);
  });

  it('accepts the DCGM 4.6 names beside the old ones, with the ratio-to-percent scale', () => {
    expect(metricNamesOf('utilizationPct')).toEqual([{ name: 'DCGM_FI_DEV_GPU_UTIL', scale: 1 }, { name: 'DCGM_FI_DEV_GPU_UTIL_RATIO', scale: 1 }]);
    expect(metricNamesOf('smActivePct')).toEqual([{ name: 'DCGM_FI_PROF_SM_ACTIVE', scale: 100 }, { name: 'DCGM_FI_PROF_SM_UTIL_RATIO', scale: 100 }]);
    expect(allMetricNames()).toEqual(expect.arrayContaining([
      'DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED', 'DCGM_FI_DEV_FB_FREE', 'DCGM_FI_DEV_FB_RESERVED', 'DCGM_FI_DEV_FB_TOTAL',
      'DCGM_FI_PROF_SM_ACTIVE', 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', 'DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO',
    ]));
  });
});

describe('PCIe metrics read', () => {
  it('reads the profiling byte counters first, then NVML\'s older KB/s throughput, with their scales to KiB/s', () => {
    expect(metricNamesOf('pcieRxKiBps')).toEqual([{ name: 'DCGM_FI_PROF_PCIE_RX_BYTES', scale: 1 / 1024 }, { name: 'DCGM_FI_DEV_PCIE_RX_THROUGHPUT', scale: 1 }]);
    expect(metricNamesOf('pcieTxKiBps')).toEqual([{ name: 'DCGM_FI_PROF_PCIE_TX_BYTES', scale: 1 / 1024 }, { name: 'DCGM_FI_DEV_PCIE_TX_THROUGHPUT', scale: 1 }]);
    expect(allMetricNames()).toEqual(expect.arrayContaining([
      'DCGM_FI_PROF_PCIE_RX_BYTES', 'DCGM_FI_PROF_PCIE_TX_BYTES', 'DCGM_FI_DEV_PCIE_RX_THROUGHPUT', 'DCGM_FI_DEV_PCIE_TX_THROUGHPUT',
    ]));
  });
});

describe('PromQL sent', () => {
  it('asks for all aggregates of a signal in a chunk in one request, tagged and joined with or', () => {
    const query = signalChunkQuery({ selector: 'DCGM_FI_PROF_SM_ACTIVE{namespace="ml"}', chunkSeconds: 86_400, stepSeconds: 300, rule: 'closed', idleBelow: 0.05 });
    const s = 'DCGM_FI_PROF_SM_ACTIVE{namespace="ml"}';
    expect(query.split('\nor ')).toEqual([
      `label_replace(sum ${BY} (count_over_time(${s}[86399999ms])), "gpu_audit", "count", "", "")`,
      `label_replace(sum ${BY} (sum_over_time(${s}[86399999ms])), "gpu_audit", "sum", "", "")`,
      `label_replace(max ${BY} (max_over_time(${s}[86399999ms])), "gpu_audit", "max", "", "")`,
      `label_replace(count_over_time((max ${BY} (${s}))[86399999ms:300s]), "gpu_audit", "steps", "", "")`,
      `label_replace(sum_over_time((max ${BY} (${s}) < bool 0.05)[86399999ms:300s]), "gpu_audit", "idle_steps", "", "")`,
    ]);
  });

  it('leaves idle steps out for signals that do not tell idleness', () => {
    expect(signalChunkQuery({ selector: 'DCGM_FI_DEV_FB_USED', chunkSeconds: 3600, stepSeconds: 60, rule: 'closed' })).not.toContain('idle_steps');
  });

  it('counts presence over all metrics, its first and last step, and the board memory once per chunk', () => {
    const query = deviceChunkQuery({ anySelector: '{__name__=~"A|B"}', memoryTotal: 'U + F', chunkSeconds: 3600, stepSeconds: 60, rule: 'closed' });
    expect(query.split('\nor ')).toEqual([
      `label_replace(count_over_time((group ${BY} ({__name__=~"A|B"}))[3599999ms:60s]), "gpu_audit", "steps", "", "")`,
      `label_replace(min_over_time((group ${BY} ({__name__=~"A|B"}) * time())[3599999ms:60s]), "gpu_audit", "first", "", "")`,
      `label_replace(max_over_time((group ${BY} ({__name__=~"A|B"}) * time())[3599999ms:60s]), "gpu_audit", "last", "", "")`,
      `label_replace(max_over_time((max ${BY} (U + F))[3599999ms:60s]), "gpu_audit", "memory_total", "", "")`,
    ]);
  });

  it('adds PCIe count, sum and max to the device query in MiB/s, each device reading its first series of the two', () => {
    // bytes/s / 1,048,576 and KB/s / 1024 are MiB/s.
    const rx = { tag: 'pcie_rx', sources: [{ selector: 'PROF_RX', perMiBps: 1_048_576 }, { selector: 'DEV_RX', perMiBps: 1024 }] };
    const query = deviceChunkQuery({ anySelector: 'A', pcie: [rx], chunkSeconds: 3600, stepSeconds: 60, rule: 'closed' });
    expect(query.split('\nor ').slice(3)).toEqual([
      `label_replace(sum ${BY} (count_over_time(PROF_RX[3599999ms])) or sum ${BY} (count_over_time(DEV_RX[3599999ms])), "gpu_audit", "pcie_rx_count", "", "")`,
      `label_replace((sum ${BY} (sum_over_time(PROF_RX[3599999ms]))) / 1048576 or (sum ${BY} (sum_over_time(DEV_RX[3599999ms]))) / 1024, "gpu_audit", "pcie_rx_sum", "", "")`,
      `label_replace((max ${BY} (max_over_time(PROF_RX[3599999ms]))) / 1048576 or (max ${BY} (max_over_time(DEV_RX[3599999ms]))) / 1024, "gpu_audit", "pcie_rx_max", "", "")`,
    ]);
    const tx = { tag: 'pcie_tx', sources: [{ selector: 'DEV_TX', perMiBps: 1024 }] };
    expect(pcieQuantileQuery([rx, tx], 0.95, 7 * 86_400, 'left-open').split('\nor ')).toEqual([
      `label_replace((max ${BY} (quantile_over_time(0.95, PROF_RX[604800000ms]))) / 1048576 or (max ${BY} (quantile_over_time(0.95, DEV_RX[604800000ms]))) / 1024, "gpu_audit", "pcie_rx_quantile", "", "")`,
      `label_replace((max ${BY} (quantile_over_time(0.95, DEV_TX[604800000ms]))) / 1024, "gpu_audit", "pcie_tx_quantile", "", "")`,
    ]);
  });

  it('asks quantiles over the whole window, and bucket means best signal first', () => {
    expect(quantileQuery('DCGM_FI_DEV_GPU_UTIL', 0.95, 7 * 86_400, 'closed')).toBe(`max ${BY} (quantile_over_time(0.95, DCGM_FI_DEV_GPU_UTIL[604799999ms]))`);
    expect(bucketComputeQuery([{ selector: 'SM', scale: 100 }, { selector: 'UTIL', scale: 1 }], 3600, 'closed').split('\nor ')).toEqual([
      `round(avg ${BY} ((avg_over_time(SM[3599999ms] offset 1ms) or last_over_time(SM[10m] offset 1ms)) * 100), 0.01)`,
      `round(avg ${BY} (avg_over_time(UTIL[3599999ms] offset 1ms) or last_over_time(UTIL[10m] offset 1ms)), 0.01)`,
    ]);
    expect(bucketMemoryMaxQuery('FB', 240, 'closed')).toBe(`max ${BY} (max_over_time(FB[239999ms] offset 1ms) or last_over_time(FB[10m] offset 1ms))`);
  });

  it('sizes every range for the server\'s rule: the full length where ranges are left-open (3.x)', () => {
    const query = signalChunkQuery({ selector: 'U', chunkSeconds: 3600, stepSeconds: 60, rule: 'left-open', idleBelow: 5 });
    expect(query).toContain('count_over_time(U[3600000ms])');
    expect(query).toContain('[3600000ms:60s]');
    expect(quantileQuery('U', 0.5, 3600, 'left-open')).toContain('U[3600000ms]');
    expect(bucketMemoryMaxQuery('FB', 240, 'left-open')).toBe(`max ${BY} (max_over_time(FB[240000ms] offset 1ms) or last_over_time(FB[10m] offset 1ms))`);
  });

  it('asks, per device and container of the pod mapping, the steps it held the device and the first and last of them', () => {
    const pods = ['{__name__=~"A|B",exported_pod!=""}', '{__name__=~"A|B",pod!=""}'];
    const query = deviceChunkQuery({ anySelector: '{__name__=~"A|B"}', podSelectors: pods, chunkSeconds: 3600, stepSeconds: 60, rule: 'closed' });
    const BY_POD = 'by (UUID, uuid, gpu, pci_bus_id, Hostname, hostname, modelName, GPU_I_ID, GPU_I_PROFILE, DCGM_FI_DRIVER_VERSION, ' +
      'exported_pod, exported_namespace, exported_container, pod, namespace, container, pod_name, pod_namespace, container_name, service, endpoint)';
    const withPod = `group ${BY_POD} (${pods.join(' or ')})`;
    expect(query.split('\nor ').slice(3)).toEqual([
      `label_replace(count_over_time((${withPod})[3599999ms:60s]), "gpu_audit", "pod_steps", "", "")`,
      `label_replace(min_over_time((${withPod} * time())[3599999ms:60s]), "gpu_audit", "pod_first", "", "")`,
      `label_replace(max_over_time((${withPod} * time())[3599999ms:60s]), "gpu_audit", "pod_last", "", "")`,
    ]);
  });
});

describe('the range rule probe', () => {
  it('reads no data, and tells 2.x (3 steps in [T - 2 s, T]) from 3.x (2 steps in (T - 2 s, T])', () => {
    expect(RANGE_RULE_PROBE).toBe('count_over_time(vector(1)[2s:1s])');
    expect(rangeRuleOf(3)).toBe('closed');
    expect(rangeRuleOf(2)).toBe('left-open');
    for (const other of [0, 1, 4, Number.NaN]) expect(rangeRuleOf(other)).toBeUndefined();
  });
});
