/**
 * What sources hand to analysis: facts about devices and timestamped samples.
 *
 * Sources never build whole in-memory tables: they push events into an
 * ObservationSink as they read, so memory grows with devices and series, not
 * with samples. Every field is optional where some real input lacks it.
 */

/** How a source names a device. Analysis resolves refs to one device (see analysis/identity). */
export interface DeviceRef {
  /** Host the input is attributed to (collect bundle, --host, or the file name). */
  host: string;
  /** `GPU-…` UUID of the physical GPU (for a MIG device: of its parent). */
  uuid?: string;
  /** PCI bus id, normalised to `DDDDDDDD:BB:DD.F` upper-case hex. */
  pciBusId?: string;
  /** nvidia-smi index (dmon/pmon/CSV `index`); weakest identity, used when nothing else is known. */
  index?: number;
  /** MIG GPU instance id: set only for a MIG device. */
  gpuInstanceId?: number;
  /** MIG compute instance id, when the source gives it. */
  computeInstanceId?: number;
}

export type MigMode = 'enabled' | 'disabled';

/** Inventory facts; a source may send them once or with every document. Later values fill gaps. */
export interface DeviceInfo {
  ref: DeviceRef;
  /** Product name exactly as printed (`NVIDIA H100 80GB HBM3`, `Tesla T4`, `GRID P4-1Q`). */
  model?: string;
  memoryTotalMiB?: number;
  migMode?: MigMode;
  /** MIG profile name (`1g.10gb`) for a MIG device, when known. */
  migProfile?: string;
  /** Streaming multiprocessors of a MIG device (from device_attributes). */
  multiprocessorCount?: number;
  /** `pci_device_id` as printed (`20B010DE`), second key for the GPU catalog. */
  pciDeviceId?: string;
  driverVersion?: string;
  architecture?: string;
  /**
   * The fastest PCIe link this GPU can run with this host (XML `pci_gpu_link_info`
   * `max_link_gen`, `max_link_width`; CSV `pcie.link.gen.max`, `pcie.link.width.max`):
   * generation 1-6 and lanes. The current link drops at
   * idle to save power, so the maximum is the bandwidth transfers can get.
   */
  pcieLinkMaxGeneration?: number;
  pcieLinkMaxWidth?: number;
}

/** Which signal a compute figure comes from, best first (DESIGN.md section 5). */
export type ComputeBasis = 'sm-active' | 'gr-engine-active' | 'utilization' | 'processes' | 'unknown';

/** One reading of one device at one time. Units are in the field names; missing means not reported. */
export interface GpuSample {
  ref: DeviceRef;
  /** Epoch milliseconds; undefined for a reading without a timestamp (a point value). */
  time?: number;
  /** `utilization.gpu` / `DCGM_FI_DEV_GPU_UTIL`: share of time a kernel ran, 0-100. */
  utilizationPct?: number;
  memoryUtilizationPct?: number;
  memoryUsedMiB?: number;
  memoryTotalMiB?: number;
  /** DCGM profiling ratios converted to percent (0-100). */
  smActivePct?: number;
  tensorActivePct?: number;
  grEngineActivePct?: number;
  powerW?: number;
  pcieRxKiBps?: number;
  pcieTxKiBps?: number;
  /** Compute processes listed on the device at this time; undefined when the source lists none. */
  computeProcessCount?: number;
}

export type ProcessType = 'C' | 'G' | 'C+G';

/** A process seen on a device at one time (XML process list, --query-compute-apps, pmon). */
export interface ProcessSample {
  ref: DeviceRef;
  time?: number;
  pid: number;
  /** Full path where the source prints it; pmon truncates to about 15 characters. */
  name: string;
  type?: ProcessType;
  usedMemoryMiB?: number;
  smPct?: number;
}

/** A bad record inside a good input: skipped, counted, reported in `sources[].warnings`. */
export interface SourceWarning {
  /** Where: `document 3`, `line 17`. */
  location: string;
  message: string;
}

/** A Kubernetes container seen holding a device at one time (dcgm-exporter pod labels). */
export interface PodAssignment {
  ref: DeviceRef;
  time?: number;
  namespace: string;
  pod: string;
  container?: string;
}

/**
 * One reading of a cumulative CPU counter (node_exporter `node_cpu_seconds_total`, cAdvisor
 * `container_cpu_*`). Raw counter values: analysis takes rates from deltas between readings.
 */
export interface HostCpuSample {
  host: string;
  /** Epoch milliseconds of the scrape. */
  time: number;
  /** The `cpu` label (`0`, `1`, ...): distinct values count the host's cores. */
  cpu: string;
  /** The `mode` label (`idle`, `iowait`, `user`, `system`, ...). */
  mode: string;
  secondsTotal: number;
}

export type ContainerCpuCounter = 'usage-seconds' | 'cfs-periods' | 'cfs-throttled-periods';

export interface ContainerCpuSample {
  host: string;
  time: number;
  namespace: string;
  pod: string;
  container: string;
  counter: ContainerCpuCounter;
  value: number;
}

/**
 * A host's CPU seconds over a window, by mode and summed over its CPUs: the increases a source
 * computed itself (a live Prometheus query) instead of handing on raw readings.
 */
export interface HostCpuTotals {
  host: string;
  cores: number;
  secondsByMode: Record<string, number>;
  /** From the first to the last reading, seconds. */
  windowSeconds: number;
  counterResets: number;
}

/** A container's counter increases over a window, as HostCpuTotals; a counter it lacks is absent. */
export interface ContainerCpuTotals {
  host: string;
  namespace: string;
  pod: string;
  container: string;
  usageSeconds?: number;
  /** From the first to the last reading of the usage counter, seconds. */
  presentSeconds?: number;
  periods?: number;
  throttledPeriods?: number;
}

/**
 * One reading of a process's cumulative CPU time (a collect bundle's processes.csv): a GPU
 * process or one of its descendants (data-loader workers). Analysis takes rates from deltas.
 */
export interface ProcessCpuSample {
  host: string;
  /** Epoch milliseconds of the sample. */
  time: number;
  /** The GPU process (as nvidia-smi lists it) whose process tree this one is in; equal to pid for the GPU process itself. */
  gpuPid: number;
  pid: number;
  /** The kernel's short name (`comm`, at most 15 bytes). */
  comm: string;
  /** Start time after boot in clock ticks: with the pid, tells a process from a later one reusing its pid. */
  startTicks: number;
  /** User + system CPU time since the process started, seconds. */
  cpuSecondsTotal: number;
}

/** The inference servers whose Prometheus metrics gpu-audit reads (src/sources/formats/serving-metrics.ts). */
export const SERVING_SERVERS = ['vllm', 'nim', 'sglang', 'tgi', 'triton'] as const;
export type ServingServer = (typeof SERVING_SERVERS)[number];

/**
 * What a serving metric measures, whatever the server calls it: counters (cumulative since the
 * server started), gauges, latency histograms (seconds) and Triton's cumulative microsecond
 * counters, each in the unit its name says.
 */
export type ServingMetric =
  | 'requests' | 'failed-requests' | 'prompt-tokens' | 'generation-tokens' | 'preemptions'
  | 'running' | 'waiting' | 'kv-cache-usage'
  | 'e2e-latency' | 'ttft' | 'tpot' | 'queue-time'
  | 'request-duration-us' | 'queue-duration-us' | 'compute-duration-us'
  | 'request-summary-us';

export type ServingReadingKind = 'counter' | 'gauge' | 'bucket' | 'sum' | 'count' | 'quantile';

/**
 * One reading of an inference server's metric, keyed by the server instance it came from
 * (`instance`: server, host, pod and model, as the parser names them). A histogram arrives as
 * its buckets (`le`), `_sum` and `_count`; a summary as its quantiles.
 */
export interface ServingSample {
  server: ServingServer;
  /** The server instance: one per process serving one model (`vllm host/pod model engine`). */
  instance: string;
  host: string;
  model: string | null;
  namespace: string | null;
  pod: string | null;
  /** Epoch milliseconds of the scrape; undefined for a scrape without timestamps. */
  time: number | undefined;
  metric: ServingMetric;
  kind: ServingReadingKind;
  /** The series within the metric (a counter split by finished_reason, a bucket's other labels), so readings of one series are compared with each other only. */
  series: string;
  /** Upper bound of a bucket (`+Inf` as Infinity), or the quantile of a summary reading. */
  bound?: number;
  value: number;
}

export interface ObservationSink {
  device(info: DeviceInfo): void;
  sample(sample: GpuSample): void;
  process(process: ProcessSample): void;
  warn(warning: SourceWarning): void;
  /** Optional: only sinks that attribute GPUs to pods implement it. */
  assignment?(assignment: PodAssignment): void;
  /** Optional: only sinks that judge the CPU data pipeline implement them. */
  hostCpu?(sample: HostCpuSample): void;
  containerCpu?(sample: ContainerCpuSample): void;
  processCpu?(sample: ProcessCpuSample): void;
  /** Optional: only sinks that profile inference servers implement it. */
  serving?(sample: ServingSample): void;
  /**
   * A parser that sends much at once with no input read in between (a Prometheus answer's
   * samples, sent device by device after the whole document) awaits this now and then, so that
   * a sink passing calls on (the parse worker's) can pass on what it holds. Optional: a sink
   * that holds nothing has nothing to wait for.
   */
  pause?(): Promise<void>;
}
