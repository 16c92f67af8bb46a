/**
 * config/: gpu-audit.yaml discovery, settings and the workloads `init` proposes. The CLI reads
 * the config and hands it down as plain data; nothing below the CLI reads it. The document
 * itself (schema, loader, writer) is ./document, loaded on demand:
 *
 *   const loaded = await loadAuditConfig({ explicitFile: options.config, cwd: process.cwd() });
 *   const settings = loaded === undefined ? undefined : settingsOf(loaded.config);
 */
export { CONFIG_FILE_NAMES, discoverConfigFile } from './discover.js';
export { flagOverConfig, loadAuditConfig, settingsOf } from './settings.js';
export type { ConfigLookup, ConfigSettings } from './settings.js';
export { MODEL_DTYPES, PLAN_BASES, THROUGHPUT_UNITS, UNASSIGNED_WORKLOAD, WORKLOAD_KINDS } from './vocabulary.js';
export type { ConfigProblem, GpuAuditConfig, LoadedConfig, WorkloadConfig, WorkloadKind } from './document/index.js';
export { escapeRegExp, normaliseCommand, proposeThresholds, proposeWorkloads, suggestKind } from './propose.js';
export type { ProposedMatch, ProposedThresholds, WorkloadProposal } from './propose.js';
