/**
 * The source registry: every input format gpu-audit reads, detected by content.
 * Order matters only for readability: detectors are mutually exclusive (tests check it).
 */
import { InputError } from '../model/errors.js';
import { dcgmExporter } from './dcgm-exporter.js';
import { dcgmiDiscovery } from './dcgmi-discovery.js';
import { dcgmiDmon } from './dcgmi-dmon.js';
import { nvidiaSmiCapture } from './nvidia-smi-capture.js';
import { nvidiaSmiComputeApps } from './nvidia-smi-compute-apps.js';
import { nvidiaSmiCsv } from './nvidia-smi-csv.js';
import { nvidiaSmiDmon } from './nvidia-smi-dmon.js';
import { nvidiaSmiPmon } from './nvidia-smi-pmon.js';
import { nvidiaSmiXml } from './nvidia-smi-xml.js';
import { nodeMetrics } from './node-metrics.js';
import { prometheusJson } from './prometheus-json.js';
import { procStatCsv } from './proc-stat-csv.js';
import { processCpuCsv } from './process-cpu-csv.js';
import type { SourceParser } from './types.js';

export type { ParseResult, SourceContext, SourceParser } from './types.js';
export { resolveInputs, openInput, rereadOf, hostForInput, HEAD_CHARS, STDIN_REF, type InputRef, type OpenedInput } from './inputs.js';
export { isValidTimeZone, localTimeZone } from './timestamps.js';
export { BUNDLE_MANIFEST_FILE, BUNDLE_SCHEMA_VERSION, bundleTimeZone, readBundleManifest, type BundleManifest, type BundleFileFormat } from './collect-bundle.js';

export const sourceParsers: readonly SourceParser[] = [
  nvidiaSmiXml,
  nvidiaSmiCapture,
  nvidiaSmiCsv,
  nvidiaSmiComputeApps,
  nvidiaSmiDmon,
  nvidiaSmiPmon,
  dcgmExporter,
  nodeMetrics,
  prometheusJson,
  dcgmiDmon,
  dcgmiDiscovery,
  procStatCsv,
  processCpuCsv,
];

/** Share of U+FFFD / NUL / other control characters above which a head is binary, not text. */
const BINARY_SHARE = 0.1;

/** Characters of a head looked at for binary data, as git does: the head of a small file is the whole file. */
const BINARY_SNIFF_CHARS = 8192;

function looksBinary(head: string): boolean {
  const length = Math.min(head.length, BINARY_SNIFF_CHARS);
  let odd = 0;
  for (let i = 0; i < length; i += 1) {
    const code = head.charCodeAt(i);
    if (code === 0) return true;
    if (code === 0xfffd || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d)) odd += 1;
  }
  return length > 0 && odd / length > BINARY_SHARE;
}

/** The parser for an input's head, or undefined when no format claims it. */
export function detectParser(head: string): SourceParser | undefined {
  return sourceParsers.find((parser) => parser.detect(head));
}

/** Like detectParser, but an unreadable head becomes an InputError that says what was expected. */
export function requireParser(head: string, ref: string): SourceParser {
  if (head.trim() === '') throw new InputError('the input is empty', { file: ref });
  if (looksBinary(head)) {
    throw new InputError('binary data, not a text format gpu-audit reads (expected nvidia-smi, DCGM or Prometheus output)', { file: ref });
  }
  const parser = detectParser(head);
  if (parser === undefined) {
    const formats = sourceParsers.map((candidate) => candidate.description).join(', ');
    throw new InputError(`unrecognised format: expected one of ${formats}`, { file: ref, location: 'line 1' });
  }
  return parser;
}
