/**
 * The bundle `gpu-audit collect` writes and `audit` reads: a directory with `manifest.json`
 * and the files it lists (src/collect writes it, src/sources/bundle.ts reads it). Bump the
 * schema version on any change a reader of an older bundle would misread.
 */
export const BUNDLE_MANIFEST_FILE = 'manifest.json';
export const BUNDLE_SCHEMA_VERSION = 1;

/** What each file of a bundle holds; AUDITED_BUNDLE_FORMATS are audit inputs. */
export const BUNDLE_FILE_FORMATS = ['nvidia-smi-xml', 'proc-stat-csv', 'process-cpu-csv'] as const;
export type BundleFileFormat = (typeof BUNDLE_FILE_FORMATS)[number];

export interface BundleManifest {
  schemaVersion: typeof BUNDLE_SCHEMA_VERSION;
  kind: 'gpu-audit-bundle';
  tool: { name: string; version: string };
  host: string;
  /** IANA zone of this machine: nvidia-smi prints its timestamps in local time without a zone. */
  timezone: string;
  startedAt: string;
  /** null while sampling runs (or when the collector was killed without a chance to finish). */
  endedAt: string | null;
  complete: boolean;
  stoppedBy: 'duration' | 'signal' | 'running';
  intervalSeconds: number;
  durationSeconds: number;
  /** USER_HZ: the unit of the tick counts in proc-stat.csv and processes.csv. */
  clockTicksPerSecond: number;
  cpuCount: number;
  nvidiaSmi: { driverVersion: string | null; cudaVersion: string | null };
  samples: { kept: number; failed: number; lastError: string | null };
  files: { name: string; format: BundleFileFormat; description: string }[];
}

/**
 * The files `audit <bundle>` reads: the nvidia-smi XML log, the host CPU ticks
 * (src/sources/formats/proc-stat-csv.ts) and the CPU ticks of the GPU processes and their
 * descendants (src/sources/formats/process-cpu-csv.ts). Every format a bundle holds is read.
 */
export const AUDITED_BUNDLE_FORMATS: readonly BundleFileFormat[] = ['nvidia-smi-xml', 'proc-stat-csv', 'process-cpu-csv'];

/** The aggregate `cpu` line of /proc/stat, in ticks since boot. */
export interface CpuTimes {
  user: number;
  nice: number;
  system: number;
  idle: number;
  iowait: number;
  irq: number;
  softirq: number;
  steal: number;
}

export const CPU_TIME_FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'] as const satisfies readonly (keyof CpuTimes)[];

/** USER_HZ: 100 on every mainstream Linux build; asked of getconf when it is there. */
export const DEFAULT_CLOCK_TICKS = 100;

