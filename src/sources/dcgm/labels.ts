/**
 * What the labels of one dcgm-exporter series say about the device it measures and the
 * Kubernetes container using it. The same labels arrive through /metrics scrapes and
 * through the Prometheus API (where Prometheus adds its own target labels), so both
 * parsers read them here. Labels are looked up by name: their order varies.
 *
 * dcgm-exporter's GPU series (internal/pkg/rendermetrics/render_metrics.go):
 *   NAME{gpu="0",UUID="GPU-...",pci_bus_id="00000000:37:00.0",device="nvidia0",
 *        modelName="Tesla T4",[GPU_I_PROFILE="1g.10gb",GPU_I_ID="3",]Hostname="node-1",
 *        DCGM_FI_DRIVER_VERSION="590.48.01"[,pod="...",namespace="...",container="..."]} VALUE
 */
import type { DeviceRef } from '../../model/index.js';
import { normalisePciBusId } from '../lexers/text/values.js';

export type SeriesLabels = ReadonlyMap<string, string>;

export interface PodLabels {
  namespace: string;
  pod: string;
  container?: string;
}

export interface SeriesDevice {
  /** Equal keys name the same device (MIG instances are devices of their own). */
  key: string;
  ref: DeviceRef;
  model?: string;
  driverVersion?: string;
  /** MIG profile (`1g.10gb`) of a MIG instance's series. */
  migProfile?: string;
}

export interface SeriesLabelsRead {
  device: SeriesDevice;
  /** The container holding the device, from the exporter's pod mapping. */
  pod?: PodLabels;
  /**
   * True when `pod`/`namespace` labels were left unread because they name the scraped
   * exporter pod (Prometheus Operator target labels), not a GPU workload.
   */
  targetPodLabelsIgnored: boolean;
}

/**
 * `Hostname` until dcgm-exporter 4.8.2, `hostname` since (commit d5e5f51, May 2026), and on
 * NVLink series before that. Its value is the node name (NODE_NAME in Kubernetes, else the
 * exporter's hostname), the host the GPUs are in. It wins over the host gpu-audit made up
 * for the input (from its file name), because one file may hold a federated scrape of many
 * nodes. Outside Kubernetes, an exporter run in Docker without host networking reports the
 * container id here; devices are still told apart by UUID.
 */
const HOST_LABELS = ['Hostname', 'hostname'] as const;
/** `uuid` under `--use-old-namespace`. */
const UUID_LABELS = ['UUID', 'uuid'] as const;
/** Series of NVLinks, NVSwitches and CPUs carry these and are not per-GPU series. */
const NON_GPU_LABELS = ['nvlink', 'nvswitch', 'cpu', 'cpucore'] as const;
/**
 * Prometheus Operator adds these target labels (with `pod`, `namespace`, `container` of the
 * scraped exporter pod) to everything scraped through a ServiceMonitor or PodMonitor. The
 * exporter's own pod labels then arrive renamed as `exported_pod` and so on.
 */
export const TARGET_LABELS = ['service', 'endpoint'] as const;

/** Said once per input where TARGET_LABELS kept `pod`/`namespace` from being read. */
export const TARGET_POD_LABELS_WARNING =
  'pod/namespace labels on series that also carry Prometheus Operator target labels (service, endpoint) name the ' +
  'scraped dcgm-exporter pod, not a GPU workload: not read as pod assignments (a GPU workload appears as ' +
  'exported_pod/exported_namespace)';

export interface PodLabelNames {
  pod: string;
  namespace: string;
  container: string;
  /** Whether these names can be target labels of the scrape itself (see TARGET_LABELS). */
  clashesWithTargetLabels: boolean;
}

/** Where the exporter's pod mapping can be found, best first. */
export const POD_LABEL_NAMES: readonly PodLabelNames[] = [
  // Renamed by Prometheus because the target had labels of the same name (honor_labels: false).
  { pod: 'exported_pod', namespace: 'exported_namespace', container: 'exported_container', clashesWithTargetLabels: false },
  { pod: 'pod', namespace: 'namespace', container: 'container', clashesWithTargetLabels: true },
  // dcgm-exporter --use-old-namespace.
  { pod: 'pod_name', namespace: 'pod_namespace', container: 'container_name', clashesWithTargetLabels: false },
];

function first(labels: SeriesLabels, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = labels.get(name);
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

function nonEmpty(labels: SeriesLabels, name: string): string | undefined {
  const value = labels.get(name);
  return value === undefined || value === '' ? undefined : value;
}

const WHOLE_NUMBER = /^\d+$/;

function wholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !WHOLE_NUMBER.test(text)) return undefined;
  const value = Number(text);
  // `gpu="18446744073709551616"` is past 2^53, no exact index: as if absent (fuzz regression fixture).
  return Number.isSafeInteger(value) ? value : undefined;
}

function readPod(labels: SeriesLabels): { pod?: PodLabels; targetPodLabelsIgnored: boolean } {
  const scrapedThroughOperator = TARGET_LABELS.some((name) => labels.has(name));
  let targetPodLabelsIgnored = false;
  for (const names of POD_LABEL_NAMES) {
    const pod = nonEmpty(labels, names.pod);
    const namespace = nonEmpty(labels, names.namespace);
    if (pod === undefined || namespace === undefined) continue;
    if (names.clashesWithTargetLabels && scrapedThroughOperator) {
      targetPodLabelsIgnored = true;
      continue;
    }
    const container = nonEmpty(labels, names.container);
    return { pod: container === undefined ? { namespace, pod } : { namespace, pod, container }, targetPodLabelsIgnored };
  }
  return { targetPodLabelsIgnored };
}

/** Equal for refs that name the same device. */
export function deviceKey(ref: DeviceRef): string {
  return [ref.host, ref.uuid, ref.pciBusId, ref.index, ref.gpuInstanceId].join('\u0000');
}

/** The physical GPU a MIG instance's series belongs to: same labels without the instance. */
export function migParent(device: SeriesDevice): SeriesDevice {
  const { gpuInstanceId: _instance, ...parentRef } = device.ref;
  const parent: SeriesDevice = { key: deviceKey(parentRef), ref: parentRef };
  if (device.model !== undefined) parent.model = device.model;
  if (device.driverVersion !== undefined) parent.driverVersion = device.driverVersion;
  return parent;
}

/**
 * The device and pod of a GPU series, or undefined for a series that names no GPU (NVLink,
 * NVSwitch and CPU series, or one without any GPU label).
 */
export function readSeriesLabels(labels: SeriesLabels, defaultHost: string): SeriesLabelsRead | undefined {
  if (NON_GPU_LABELS.some((name) => labels.has(name))) return undefined;
  const uuid = first(labels, UUID_LABELS);
  const busIdText = nonEmpty(labels, 'pci_bus_id');
  const pciBusId = busIdText === undefined ? undefined : normalisePciBusId(busIdText);
  const index = wholeNumber(nonEmpty(labels, 'gpu'));
  if (uuid === undefined && pciBusId === undefined && index === undefined) return undefined;
  const gpuInstanceId = wholeNumber(nonEmpty(labels, 'GPU_I_ID'));
  const host = first(labels, HOST_LABELS) ?? defaultHost;

  const ref: DeviceRef = { host };
  if (uuid !== undefined) ref.uuid = uuid;
  if (pciBusId !== undefined) ref.pciBusId = pciBusId;
  if (index !== undefined) ref.index = index;
  if (gpuInstanceId !== undefined) ref.gpuInstanceId = gpuInstanceId;

  const device: SeriesDevice = { key: deviceKey(ref), ref };
  const model = nonEmpty(labels, 'modelName');
  if (model !== undefined) device.model = model;
  const driverVersion = nonEmpty(labels, 'DCGM_FI_DRIVER_VERSION');
  if (driverVersion !== undefined) device.driverVersion = driverVersion;
  const migProfile = gpuInstanceId === undefined ? undefined : nonEmpty(labels, 'GPU_I_PROFILE');
  if (migProfile !== undefined) device.migProfile = migProfile;

  return { device, ...readPod(labels) };
}
