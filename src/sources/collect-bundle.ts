/**
 * The bundle `gpu-audit collect` writes: a directory with `manifest.json` and the files it
 * lists. `audit` reads a bundle by its directory (or its nvidia-smi.xml): the manifest, not
 * the file name, names the host, and it records the zone nvidia-smi printed its times in.
 *
 * The format is documented in the README ("Collecting a bundle"); bump the schema version
 * on any change a reader of an older bundle would misread.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_CLOCK_TICKS } from '../collect/proc.js';
import { InputError } from '../model/errors.js';
import { isValidTimeZone } from './timestamps.js';

export const BUNDLE_MANIFEST_FILE = 'manifest.json';
export const BUNDLE_SCHEMA_VERSION = 1;

/** What each file of a bundle holds; AUDITED_BUNDLE_FORMATS are audit inputs. */
export const BUNDLE_FILE_FORMATS = ['nvidia-smi-xml', 'proc-stat-csv', 'process-cpu-csv'] as const;
export type BundleFileFormat = (typeof BUNDLE_FILE_FORMATS)[number];

export interface BundleManifest {
  schemaVersion: typeof BUNDLE_SCHEMA_VERSION;
  kind: 'gpu-audit-bundle';
  tool: { name: string; version: string };
  host: string;
  /** IANA zone of this machine: nvidia-smi prints its timestamps in local time without a zone. */
  timezone: string;
  startedAt: string;
  /** null while sampling runs (or when the collector was killed without a chance to finish). */
  endedAt: string | null;
  complete: boolean;
  stoppedBy: 'duration' | 'signal' | 'running';
  intervalSeconds: number;
  durationSeconds: number;
  /** USER_HZ: the unit of the tick counts in proc-stat.csv and processes.csv. */
  clockTicksPerSecond: number;
  cpuCount: number;
  nvidiaSmi: { driverVersion: string | null; cudaVersion: string | null };
  samples: { kept: number; failed: number; lastError: string | null };
  files: { name: string; format: BundleFileFormat; description: string }[];
}

/** zod is loaded only when a directory turns out to hold a manifest (it costs start-up time). */
async function manifestSchema() {
  const { z } = await import('zod');
  return z.object({
    schemaVersion: z.literal(BUNDLE_SCHEMA_VERSION),
    kind: z.literal('gpu-audit-bundle'),
    tool: z.object({ name: z.string(), version: z.string() }),
    host: z.string().min(1),
    timezone: z.string().min(1),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    complete: z.boolean(),
    stoppedBy: z.enum(['duration', 'signal', 'running']),
    intervalSeconds: z.number().positive(),
    durationSeconds: z.number().positive(),
    clockTicksPerSecond: z.number().positive(),
    cpuCount: z.number().int().positive(),
    nvidiaSmi: z.object({ driverVersion: z.string().nullable(), cudaVersion: z.string().nullable() }),
    samples: z.object({ kept: z.number().int().nonnegative(), failed: z.number().int().nonnegative(), lastError: z.string().nullable() }),
    files: z.array(z.object({ name: z.string().min(1), format: z.enum(BUNDLE_FILE_FORMATS), description: z.string() })),
  });
}

/**
 * The manifest of the bundle in `directory`, or undefined when the directory is not a
 * bundle (no manifest.json, or one that is not ours). A manifest that claims to be a
 * bundle but does not validate is an InputError: silently auditing it as a plain
 * directory would credit its devices to a host named after a file.
 */
export async function readBundleManifest(directory: string): Promise<BundleManifest | undefined> {
  const file = path.join(directory, BUNDLE_MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || (json as { kind?: unknown }).kind !== 'gpu-audit-bundle') return undefined;
  const parsed = (await manifestSchema()).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : `${issue.path.join('.') || '(root)'}: ${issue.message}`;
    throw new InputError(`not a valid gpu-audit bundle manifest (${where})`, { file });
  }
  const manifest: BundleManifest = parsed.data;
  if (!isValidTimeZone(manifest.timezone)) throw new InputError(`the manifest's timezone ${JSON.stringify(manifest.timezone)} is not an IANA zone this runtime knows`, { file });
  return manifest;
}

/**
 * The files `audit <bundle>` reads: the nvidia-smi XML log, the host CPU ticks
 * (src/sources/proc-stat-csv.ts) and the CPU ticks of the GPU processes and their
 * descendants (src/sources/process-cpu-csv.ts). Every format a bundle holds is read.
 */
export const AUDITED_BUNDLE_FORMATS: readonly BundleFileFormat[] = ['nvidia-smi-xml', 'proc-stat-csv', 'process-cpu-csv'];

/** Paths of the bundle's audit inputs, in manifest order. */
export function bundleAuditFiles(directory: string, manifest: BundleManifest): string[] {
  return manifest.files
    .filter((entry) => AUDITED_BUNDLE_FORMATS.includes(entry.format) && path.basename(entry.name) === entry.name)
    .map((entry) => path.join(directory, entry.name));
}

/** The manifest of the bundle a file belongs to, when the manifest beside it lists it. */
export async function bundleManifestOfFile(file: string): Promise<BundleManifest | undefined> {
  const manifest = await readBundleManifest(path.dirname(file));
  return manifest?.files.some((entry) => entry.name === path.basename(file)) === true ? manifest : undefined;
}

/** USER_HZ of the bundle a CPU-ticks file belongs to; stdin and loose files get Linux's default. */
export async function bundleClockTicksOf(ref: string): Promise<number> {
  const manifest = await bundleManifestOfFile(ref).catch(() => undefined);
  return manifest?.clockTicksPerSecond ?? DEFAULT_CLOCK_TICKS;
}

/** The one zone all bundles among `args` agree on; undefined when none is a bundle or they differ. */
export async function bundleTimeZone(args: readonly string[]): Promise<string | undefined> {
  const zones = new Set<string>();
  for (const arg of args) {
    const manifest = (await readBundleManifest(arg)) ?? (await bundleManifestOfFile(arg));
    if (manifest !== undefined) zones.add(manifest.timezone);
  }
  return zones.size === 1 ? [...zones][0] : undefined;
}
