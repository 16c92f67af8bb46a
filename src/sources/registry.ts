/**
 * The source registry: every input format gpu-audit reads, detected by content.
 * Order matters only for readability: detectors are mutually exclusive (tests check it).
 */
import { dcgmExporter } from './formats/dcgm-exporter.js';
import { dcgmiDiscovery } from './formats/dcgmi-discovery.js';
import { dcgmiDmon } from './formats/dcgmi-dmon.js';
import { nvidiaSmiCapture } from './formats/nvidia-smi-capture.js';
import { nvidiaSmiComputeApps } from './formats/nvidia-smi-compute-apps.js';
import { nvidiaSmiCsv } from './formats/nvidia-smi-csv.js';
import { nvidiaSmiDmon } from './formats/nvidia-smi-dmon.js';
import { nvidiaSmiPmon } from './formats/nvidia-smi-pmon.js';
import { nvidiaSmiXml } from './formats/nvidia-smi-xml.js';
import { nodeMetrics } from './formats/node-metrics.js';
import { prometheusJson } from './formats/prometheus-json.js';
import { procStatCsv } from './formats/proc-stat-csv.js';
import { processCpuCsv } from './formats/process-cpu-csv.js';
import { servingMetrics } from './formats/serving-metrics.js';
import type { SourceParser } from './types.js';

export const sourceParsers: readonly SourceParser[] = [
  nvidiaSmiXml,
  nvidiaSmiCapture,
  nvidiaSmiCsv,
  nvidiaSmiComputeApps,
  nvidiaSmiDmon,
  nvidiaSmiPmon,
  dcgmExporter,
  nodeMetrics,
  servingMetrics,
  prometheusJson,
  dcgmiDmon,
  dcgmiDiscovery,
  procStatCsv,
  processCpuCsv,
];
