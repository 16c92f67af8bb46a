export { collect, type CollectOptions, type CollectProgress, type CollectResult } from './collector.js';
export { NVIDIA_SMI_MISSING, NvidiaSmiMissing, nvidiaSmiSnapshot, snapshotFacts, type SnapshotFacts, type SnapshotTaker } from './nvidia-smi.js';
export { PROCESSES_FILE, PROC_STAT_FILE, XML_FILE } from './bundle-writer.js';

