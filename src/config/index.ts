/**
 * config/: gpu-audit.yaml discovery, schema and loading. The CLI reads the config and hands
 * it down as plain data; nothing below the CLI reads it.
 *
 *   const file = options.config ?? (await discoverConfigFile(process.cwd()));
 *   const loaded = file === undefined ? undefined : await loadConfigFile(file);
 */
export { CONFIG_FILE_NAMES, discoverConfigFile } from './discover.js';
export { formatPath, loadConfigFile, parseConfig } from './load.js';
export type { ConfigProblem, LoadedConfig } from './load.js';
export { CONFIG_SCHEMA_FILE, configJsonSchema, configJsonSchemaText } from './json-schema.js';
export {
  configSchema,
  workloadSchema,
  FINDING_LEVELS,
  MODEL_DTYPES,
  PRICING_MODELS,
  PROVIDERS,
  THROUGHPUT_UNITS,
  UNASSIGNED_WORKLOAD,
  WORKLOAD_KINDS,
} from './schema.js';
export type { GpuAuditConfig, WorkloadConfig, WorkloadKind } from './schema.js';
export { flagOverConfig, loadAuditConfig, settingsOf } from './settings.js';
export type { ConfigLookup, ConfigSettings } from './settings.js';
