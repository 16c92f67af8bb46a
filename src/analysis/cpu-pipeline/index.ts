/**
 * CPU data pipeline (issue "Per-model profiling", items 4 and 5): is a workload's GPU starved
 * by its CPU, and what do its sidecars cost. Pure functions over plain figures.
 */
export { CounterTable, type CounterIncrease } from './counters.js';
export {
  CpuUsageTable, MAX_CPU_SERIES, NOT_BUSY_MODES, containerCpuFromTotals, hostCpuFromTotals,
  type ContainerCpuFigures, type HostCpuFigures,
} from './cpu-usage.js';
export {
  MAX_PROCESS_TREES_IN_EVIDENCE, pcieRxHighMiBps, pipelineVerdict, PIPELINE_THRESHOLDS,
  type PcieRxFigure, type PipelineFigures, type PipelineJudgement, type PipelineVerdict, type ProcessTreeFigure,
} from './verdict.js';
export { NO_SIDECARS, sidecarHourlyUsd, sidecarNodeShare, workloadSidecars, type PodSidecars, type WorkloadSidecars } from './sidecars.js';
export { containerKey, podKey, processTreeKey, workloadCpuPipeline, workloadSidecarFigures, type PipelineInputs, type WorkloadPipelineFacts } from './workload.js';
export { hostCpuByGpuHost, hostHourlyUsd, pipelineInputs, processTreesByGpuHost, type PipelineSources } from './inputs.js';
export { MAX_PROCESS_SERIES, ProcessCpuTable, type ProcessTreeCpuFigures } from './process-cpu.js';
