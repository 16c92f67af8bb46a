/**
 * Analysis: pure functions and streaming accumulators from observation events to the GPU
 * part of the report (DESIGN.md sections 4 and 5). Nothing here reads files or prints.
 *
 *   const analyzer = createFleetAnalyzer({ idleThresholdPct: 5 });
 *   analyzer.beginSource('gpu0.csv'); await parser.parse(chunks, context, analyzer);
 *   const profile = analyzer.finish();
 *   const gpus = priceGpus(identifyModels(profile.gpus, profile.deviceFacts), pricingSettings);
 *   const findings = gpuFindings(gpus, profile.window.seconds, options);
 *   const summary = summarizeFleet(gpus, potentialMonthlySavingsUsd);
 */
export { createFleetAnalyzer } from './fleet-analyzer.js';
export type { AnalysisWarning, FleetAnalyzer, FleetProfile, FleetWindow } from './fleet-analyzer.js';
export type { DeviceFacts } from './gpu-entry.js';
export { DEFAULT_ANALYSIS_OPTIONS } from './options.js';
export type { AnalysisOptions } from './options.js';
export { summarizeFleet } from './summary.js';
export { gpuFindings } from './findings.js';
export { FINDING_RULES } from './finding-rules.js';
export type { AnalysisFindingCode } from './finding-rules.js';
export { applyGpuCosts, applyModelKeys } from './cost.js';
export type { GpuPrice } from './cost.js';
export { COMPUTE_LADDER } from './compute-ladder.js';
export { gpuEntriesFromAggregates } from './aggregates.js';
export { containerCpuFromTotals, hostCpuFromTotals, pipelineInputs } from './cpu-pipeline/index.js';
export { attributeKubernetes, nodesByHost, podsOnDevices } from './kubernetes.js';
export { identifyModels, priceGpus, type PricingSettings } from './pricing.js';
export { accountMigBoards } from './mig-accounting.js';
export type { PodAssignmentRecord } from './pod-assignments.js';
export { UNASSIGNED, detectPreallocation, matchesGlob, profileWorkloads } from './workloads/index.js';
export type { AutoscalingFacts, WorkloadDefinition } from './workloads/index.js';
export { joinServing } from './serving/serving-workloads.js';
export { servingFindings } from './serving/serving-findings.js';
export { servingPools } from './serving/serving-pools.js';
export { ServingCollector } from './serving/serving-collector.js';
