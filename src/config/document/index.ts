/**
 * gpu-audit.yaml as a document: its zod schema, its loader, its published JSON Schema and the
 * text `init` writes. These bring zod and the YAML parser, so the rest of gpu-audit reaches them
 * by import() when a config is read or written (../settings.ts), or from modules that are
 * themselves loaded on demand (the init wizard).
 */
export { formatPath, loadConfigFile, parseConfig } from './load.js';
export type { ConfigProblem, LoadedConfig } from './load.js';
export { CONFIG_SCHEMA_FILE, configJsonSchema, configJsonSchemaText } from './json-schema.js';
export { configSchema, workloadSchema } from './schema.js';
export type { GpuAuditConfig, WorkloadConfig, WorkloadKind } from './schema.js';
export { SCHEMA_REFERENCE, configText } from './config-text.js';
