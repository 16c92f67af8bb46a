/**
 * The sources' face: inputs named by the user (files, directories, globs, stdin) read into
 * observations, through the registry of formats; live sources (Prometheus, kubectl); bundles.
 */
export type { ParseResult, SourceContext, SourceParser } from './types.js';
export { sourceParsers } from './registry.js';
export { detectParser, requireParser } from './detect.js';
export { resolveInputs, openInput, rereadOf, hostForInput, HEAD_CHARS, STDIN_REF, type InputRef, type OpenedInput } from './inputs.js';
export { DEFAULT_INPUT_LIMITS, INPUT_LIMIT_ROWS, inputLimitsOf, parseInputLimit, type InputLimitRow, type InputLimits } from './input-limits.js';
export { readFiles, LARGE_READ_BYTES, type FilesRead, type ReadFilesOptions, type SourceSink } from './read-files.js';
export type { ParsePerformance } from './parallel/read-source.js';
export { isValidTimeZone, localTimeZone } from './lexers/timestamps.js';
export { bundleTimeZone, readBundleManifest } from './bundle.js';
export { mergeInventories, readKubernetesInputs } from './kubernetes.js';
export type { ContainerInfo, KubectlOptions, KubernetesInventory, KubernetesSourceRead, NodeInfo, PodInfo } from './kubernetes.js';
export { DEFAULT_QUERY_BUDGETS, parseDurationSeconds, readPrometheus } from './live/prometheus/index.js';
export type { PrometheusSourceOptions, TransferStats } from './live/prometheus/index.js';
export { PARSE_WORKER_MIN_BYTES, blockWorkerCount, parseBlockBytesOf, parseWorkerModeOf, parsesInWorker, readTail } from './parallel/policy.js';
export type { ParseWorkerMode } from './parallel/policy.js';
export { withWarnings } from './sink-with-warnings.js';
