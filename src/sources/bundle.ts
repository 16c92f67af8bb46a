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
import { BUNDLE_FILE_FORMATS, BUNDLE_SCHEMA_VERSION, BUNDLE_MANIFEST_FILE, DEFAULT_CLOCK_TICKS, AUDITED_BUNDLE_FORMATS, type BundleManifest } from '../model/index.js';
import { InputError } from '../support/index.js';
import { isValidTimeZone } from './lexers/timestamps.js';

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
