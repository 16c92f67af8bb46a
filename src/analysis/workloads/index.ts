/**
 * Workload analysis: which devices and processes belong to which configured workload, and
 * each workload's VRAM, compute, cost and waste. Pure functions over the priced GpuEntry list.
 *
 *   const workloads = profileWorkloads(gpus, config.workloads ?? [], { vramHeadroomPct: 15 });
 */
export { profileWorkloads, UNASSIGNED_KIND } from './profile.js';
export { assignDevices, assignableDevices, podMatches, UNASSIGNED } from './match.js';
export type { DeviceAssignment, DeviceClaim, ShareBasis } from './match.js';
export { estimateVram, DTYPE_BYTES, BYTES_PER_MIB, RUNTIME_BASE_OVERHEAD_MIB, RUNTIME_OVERHEAD_WEIGHTS_SHARE } from './vram-estimate.js';
export type { VramEstimate, VramTerm, VramTermName } from './vram-estimate.js';
export { detectPreallocation, PREALLOCATING_SERVERS } from './preallocation.js';
export type { PreallocatingServer, PreallocationVerdict } from './preallocation.js';
export { workloadCompute, HOURS_PER_WEEK } from './compute.js';
export type { WorkloadComputeProfile, WeightedDevice } from './compute.js';
export { workloadVram } from './vram.js';
export { workloadWaste } from './waste.js';
export type { WorkloadWaste } from './waste.js';
export { deviceHourlyCosts } from './device-cost.js';
export { globToRegExp, matchesGlob } from './glob.js';
export { DEFAULT_VRAM_HEADROOM_PCT } from './types.js';
export type { AutoscalingFacts, ModelDtype, ModelFacts, Throughput, WorkloadAnalysisOptions, WorkloadDefinition, WorkloadMatchRules } from './types.js';
