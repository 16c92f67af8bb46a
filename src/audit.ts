/**
 * The audit pipeline: inputs -> sources -> observations -> analysis -> report.
 * Library entry point; the CLI only wires options to it and renders the result.
 */
import type { Readable } from 'node:stream';
import { createFleetAnalyzer, gpuFindings, summarizeFleet, applyGpuCosts, applyModelKeys } from './analysis/index.js';
import { inferMigProfile, loadCatalog, modelKeyOf, pricePerDeviceHour, resolveInstanceType } from './catalog/index.js';
import type { InstanceCatalog, PricingModel } from './model/catalog.js';
import { InputError } from './model/errors.js';
import type { ObservationSink } from './model/observations.js';
import type { GpuEntry, InstanceTypeBasis, Report, SourceSummary } from './model/report.js';
import { REPORT_SCHEMA_VERSION } from './model/report.js';
import { hostForInput, openInput, requireParser, resolveInputs, type InputRef } from './sources/index.js';
import { TOOL_NAME, TOOL_VERSION } from './version.js';

export type Provider = 'aws' | 'azure' | 'gcp';

export interface AuditOptions {
  /** Files, directories, globs or `-`, as the user named them. */
  inputs: string[];
  /** Host for inputs that name none (overrides the file name). */
  host?: string;
  /** IANA zone for timestamps printed without one. */
  timeZone: string;
  idleThresholdPct: number;
  /** Audit the readable inputs when some cannot be read; the failures are returned. */
  keepGoing: boolean;
  provider?: Provider;
  region?: string;
  pricing: PricingModel;
  /** Instance type of every audited host, when the user knows it. */
  instanceType?: string;
  stdin?: Readable;
  /** Clock for `generatedAt`; tests pin it. */
  now?: () => Date;
  catalog?: InstanceCatalog;
  /** Called as each input starts, for progress display. */
  onInput?: (ref: string, index: number, total: number) => void;
}

export interface AuditResult {
  report: Report;
  /** Inputs that could not be read (only with keepGoing; otherwise the first one is thrown). */
  failures: InputError[];
}

/** Warning messages kept per source; the rest are counted so a broken log cannot flood the report. */
const MAX_WARNINGS_PER_SOURCE = 50;

export async function runAudit(options: AuditOptions): Promise<AuditResult> {
  const inputs = await resolveInputs(options.inputs);
  if (inputs.length === 0) throw new InputError('no input given: name files, directories, globs or - for stdin');
  const analyzer = createFleetAnalyzer({ idleThresholdPct: options.idleThresholdPct });
  const sources: SourceSummary[] = [];
  const failures: InputError[] = [];

  for (const [index, input] of inputs.entries()) {
    options.onInput?.(input.ref, index, inputs.length);
    try {
      const summary = await readInput(input, options, analyzer);
      if (summary !== undefined) sources.push(summary);
    } catch (error) {
      if (!(error instanceof InputError) || !options.keepGoing) throw error;
      failures.push(error);
      sources.push({ ref: input.ref, format: 'unreadable', records: 0, warnings: [error.describe()] });
    }
  }
  if (sources.every((source) => source.records === 0)) {
    throw new InputError('no GPU data found in the inputs', { file: inputs.length === 1 ? inputs[0]!.ref : undefined });
  }

  const profile = analyzer.finish();
  for (const warning of profile.warnings) {
    sources.find((source) => source.ref === warning.source)?.warnings.push(warning.message);
  }
  const catalog = options.catalog ?? (await loadCatalog());
  const withModels = applyModelKeys(profile.gpus, (model, pciDeviceId) => modelKeyOf(model, pciDeviceId), profile.deviceFacts);
  const withProfiles = withModels.map((gpu) =>
    gpu.parentId === null || gpu.migProfile !== null
      ? gpu
      : {
          ...gpu,
          migProfile:
            inferMigProfile(gpu.modelKey, {
              memoryTotalMiB: gpu.memoryTotalMiB,
              multiprocessorCount: profile.deviceFacts.get(gpu.id)?.multiprocessorCount,
            }) ?? null,
        },
  );
  const gpus = priceGpus(withProfiles, catalog, options);
  const findings = gpuFindings(gpus, profile.window.seconds, { idleThresholdPct: options.idleThresholdPct });
  const summary = summarizeFleet(gpus, 0);

  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    window: {
      start: profile.window.startMs === null ? null : new Date(profile.window.startMs).toISOString(),
      end: profile.window.endMs === null ? null : new Date(profile.window.endMs).toISOString(),
      seconds: profile.window.seconds,
      timezone: options.timeZone,
    },
    settings: {
      idleThresholdPct: options.idleThresholdPct,
      pricing: options.pricing,
      provider: options.provider ?? null,
      region: options.region ?? null,
    },
    sources,
    catalog: { name: catalog.name, asOf: catalog.asOf, source: catalog.origin, ageDays: catalog.ageDays },
    gpus,
    workloads: [],
    findings,
    recommendations: [],
    summary,
  };
  return { report, failures };
}

async function readInput(input: InputRef, options: AuditOptions, sink: ObservationSink & { beginSource(ref: string): void }): Promise<SourceSummary | undefined> {
  const opened = await openInput(input, options.stdin);
  try {
    let parser;
    try {
      parser = requireParser(opened.head, input.ref);
    } catch (error) {
      // A file found by walking a directory may be anything (a README, a help text): skip it, say so.
      if (input.discovered && error instanceof InputError) {
        return { ref: input.ref, format: 'skipped', records: 0, warnings: [`skipped: ${error.message}`] };
      }
      throw error;
    }
    const warnings: string[] = [];
    let warningCount = 0;
    const sourceSink: ObservationSink = {
      device: (info) => sink.device(info),
      sample: (sample) => sink.sample(sample),
      process: (process) => sink.process(process),
      warn: (warning) => {
        warningCount += 1;
        if (warnings.length < MAX_WARNINGS_PER_SOURCE) warnings.push(`${warning.location}: ${warning.message}`);
      },
    };
    sink.beginSource(input.ref);
    const context = { ref: input.ref, host: hostForInput(input, options.host), timeZone: options.timeZone };
    const result = await parser.parse(opened.chunks, context, sourceSink);
    if (warningCount > warnings.length) warnings.push(`… and ${warningCount - warnings.length} more warnings`);
    return { ref: input.ref, format: parser.format, records: result.records, warnings };
  } finally {
    opened.close();
  }
}

/** Maps each host to an instance type (flag, else inferred from GPU model x count) and prices its GPUs. */
function priceGpus(gpus: GpuEntry[], catalog: InstanceCatalog, options: AuditOptions): GpuEntry[] {
  const physicalByHost = new Map<string, GpuEntry[]>();
  for (const gpu of gpus) {
    if (gpu.parentId !== null) continue;
    const list = physicalByHost.get(gpu.host) ?? [];
    list.push(gpu);
    physicalByHost.set(gpu.host, list);
  }
  const perHost = new Map<string, { instanceType: string; basis: InstanceTypeBasis; hourlyUsdPerGpu: number | null }>();
  for (const [host, hostGpus] of physicalByHost) {
    const modelKey = mostCommon(hostGpus.map((gpu) => gpu.modelKey));
    const resolved = resolveInstanceType(catalog, {
      explicitType: options.instanceType,
      modelKey,
      gpuCount: hostGpus.length,
      provider: options.provider,
      region: options.region,
    });
    if (resolved === undefined) continue;
    perHost.set(host, {
      instanceType: resolved.instance.name,
      basis: resolved.basis,
      hourlyUsdPerGpu: pricePerDeviceHour(resolved.instance, options.pricing),
    });
  }
  return applyGpuCosts(gpus, (gpu) => perHost.get(gpu.host));
}

function mostCommon(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best = 'unknown';
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}
