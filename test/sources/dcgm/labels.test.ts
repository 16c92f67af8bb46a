import { describe, expect, it } from 'vitest';
import { migParent, readSeriesLabels } from '../../../src/sources/dcgm/labels.js';
import type { SeriesLabelsRead } from '../../../src/sources/dcgm/labels.js';

function read(labels: Record<string, string>, host = 'file-host'): SeriesLabelsRead | undefined {
  return readSeriesLabels(new Map(Object.entries(labels)), host);
}

const T4 = {
  gpu: '0',
  UUID: 'GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a',
  pci_bus_id: '00000000:37:00.0',
  device: 'nvidia0',
  modelName: 'Tesla T4',
  Hostname: 'cp-bm14r7',
  DCGM_FI_DRIVER_VERSION: '590.48.01',
};

describe('readSeriesLabels', () => {
  it('reads identity, model and driver of a GPU series', () => {
    expect(read(T4)).toEqual({
      device: {
        key: expect.any(String),
        ref: { host: 'cp-bm14r7', uuid: 'GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a', pciBusId: '00000000:37:00.0', index: 0 },
        model: 'Tesla T4',
        driverVersion: '590.48.01',
      },
      targetPodLabelsIgnored: false,
    });
  });

  it('gives the same device key whatever the label order', () => {
    const reversed = Object.fromEntries(Object.entries(T4).reverse());
    expect(read(reversed)?.device.key).toBe(read(T4)?.device.key);
  });

  it('prefers the exporter Hostname (or hostname since exporter 4.8.3) over the host of the input', () => {
    expect(read({ UUID: 'GPU-1', hostname: 'node-b' })?.device.ref.host).toBe('node-b');
    expect(read({ UUID: 'GPU-1' }, 'from-file-name')?.device.ref.host).toBe('from-file-name');
  });

  it('reads the old-namespace lower-case uuid label', () => {
    expect(read({ uuid: 'GPU-1', gpu: '3' })?.device.ref).toEqual({ host: 'file-host', uuid: 'GPU-1', index: 3 });
  });

  it('normalises the bus id to an 8-digit upper-case domain', () => {
    expect(read({ pci_bus_id: '0000:3b:00.0' })?.device.ref.pciBusId).toBe('00000000:3B:00.0');
  });

  it('makes a MIG instance its own device, under its parent GPU', () => {
    const mig = read({ ...T4, GPU_I_PROFILE: '1g.10gb', GPU_I_ID: '13' });
    expect(mig?.device).toMatchObject({
      ref: { uuid: T4.UUID, index: 0, gpuInstanceId: 13 },
      migProfile: '1g.10gb',
    });
    expect(mig?.device.key).not.toBe(read(T4)?.device.key);
    const parent = migParent(mig!.device);
    expect(parent.key).toBe(read(T4)?.device.key);
    expect(parent.ref).not.toHaveProperty('gpuInstanceId');
  });

  it('reads the pod mapping, container optional', () => {
    expect(read({ ...T4, pod: 'trainer-0', namespace: 'ml', container: 'pytorch' })?.pod).toEqual({ namespace: 'ml', pod: 'trainer-0', container: 'pytorch' });
    expect(read({ ...T4, pod: 'trainer-0', namespace: 'ml' })?.pod).toEqual({ namespace: 'ml', pod: 'trainer-0' });
    expect(read({ ...T4, pod_name: 'old', pod_namespace: 'ns', container_name: 'c' })?.pod).toEqual({ namespace: 'ns', pod: 'old', container: 'c' });
  });

  it('ignores empty pod labels and a pod without a namespace', () => {
    expect(read({ ...T4, pod: '', namespace: '' })?.pod).toBeUndefined();
    expect(read({ ...T4, pod: 'p' })?.pod).toBeUndefined();
  });

  it('does not take the scraped exporter pod of Prometheus Operator target labels for a GPU workload', () => {
    // The upcloud answer: pod/namespace/container name the dcgm-exporter pod itself.
    const scraped = read({ ...T4, pod: 'dcgm-exporter-zxgzh', namespace: 'default', container: 'exporter', service: 'dcgm-exporter', endpoint: 'metrics' });
    expect(scraped?.pod).toBeUndefined();
    expect(scraped?.targetPodLabelsIgnored).toBe(true);
  });

  it('reads the renamed exported_pod labels when the target labels took the plain names', () => {
    const renamed = read({
      ...T4, pod: 'dcgm-exporter-zxgzh', namespace: 'gpu-operator', service: 'dcgm-exporter', endpoint: 'metrics',
      exported_pod: 'vllm-0', exported_namespace: 'serving', exported_container: 'vllm',
    });
    expect(renamed?.pod).toEqual({ namespace: 'serving', pod: 'vllm-0', container: 'vllm' });
    expect(renamed?.targetPodLabelsIgnored).toBe(false);
  });

  it('does not read NVLink, NVSwitch or CPU series, nor a series without GPU labels, as GPUs', () => {
    expect(read({ nvlink: '0', gpu: '0', gpu_uuid: 'GPU-1', model_name: 'NVIDIA H100' })).toBeUndefined();
    expect(read({ nvswitch: '0', Hostname: 'h' })).toBeUndefined();
    expect(read({ cpu: '0', Hostname: 'h' })).toBeUndefined();
    expect(read({ Hostname: 'h', DCGM_FI_DRIVER_VERSION: '590.48.01' })).toBeUndefined();
  });
});
