/**
 * `gpu-audit collect`: samples this machine every interval for a duration and writes a
 * bundle that `audit` reads. Stopping early (the signal) keeps every finished sample and
 * still ends with a complete manifest; only a sample in flight is dropped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { InputError } from '../support/index.js';
import { BUNDLE_SCHEMA_VERSION, DEFAULT_CLOCK_TICKS, type BundleManifest } from '../model/index.js';
import { toolInfo } from '../support/index.js';
import { BundleWriter } from './bundle-writer.js';
import { SnapshotCanceled, nvidiaSmiSnapshot, snapshotFacts, type SnapshotTaker } from './nvidia-smi.js';
import { clockTicksPerSecond, processTrees, readAllProcesses, readProcStat, type ProcStat } from './proc.js';

/** How long a failed sample waits for a signal that may be on its way (see the loop). */
const SIGNAL_GRACE_MS = 100;

export interface CollectOptions {
  /** The bundle directory; created, and must be new or empty. */
  directory: string;
  durationSeconds: number;
  intervalSeconds: number;
  host: string;
  /** IANA zone nvidia-smi prints its times in (this machine's). */
  timeZone: string;
  /** Stops sampling early; the bundle is still finished. */
  signal?: AbortSignal;
  /** After each sample, for progress display. */
  onSample?: (progress: CollectProgress) => void;
  /** Seams for tests; the defaults are the real machine. */
  snapshot?: SnapshotTaker;
  procRoot?: string;
  now?: () => number;
}

export interface CollectProgress {
  kept: number;
  failed: number;
  elapsedSeconds: number;
  /** The failure of the sample just attempted, when it failed. */
  error?: string;
}

export interface CollectResult {
  directory: string;
  manifest: BundleManifest;
}

export async function collect(options: CollectOptions): Promise<CollectResult> {
  if (!(options.intervalSeconds > 0) || !(options.durationSeconds > 0)) throw new InputError('--duration and --interval must be positive');
  if (options.intervalSeconds > options.durationSeconds) throw new InputError('--interval is longer than --duration: there would be one sample at most; shorten --interval');
  const now = options.now ?? Date.now;
  const snapshot = options.snapshot ?? nvidiaSmiSnapshot;
  const procRoot = options.procRoot ?? '/proc';
  const signal = options.signal;
  // A function, not a narrowed property: the signal fires between any two awaits.
  const aborted = (): boolean => signal?.aborted === true;

  // The first snapshot comes before anything is written: a machine without a working
  // nvidia-smi leaves no empty bundle behind. It is not cancelled, so a bundle that
  // exists always holds at least one document.
  const startMs = now();
  // Asked alongside the first snapshot so that it cannot push the second one off its slot.
  const ticks = clockTicksPerSecond();
  const firstDocument = await snapshot();
  const firstProcStat = await readProcStat(procRoot);
  const facts = snapshotFacts(firstDocument);

  const writer = await BundleWriter.create(options.directory, firstProcStat !== undefined);
  const manifest: BundleManifest = {
    schemaVersion: BUNDLE_SCHEMA_VERSION,
    kind: 'gpu-audit-bundle',
    tool: toolInfo(),
    host: options.host,
    timezone: options.timeZone,
    startedAt: new Date(startMs).toISOString(),
    endedAt: null,
    complete: false,
    stoppedBy: 'running',
    intervalSeconds: options.intervalSeconds,
    durationSeconds: options.durationSeconds,
    clockTicksPerSecond: firstProcStat === undefined ? DEFAULT_CLOCK_TICKS : await ticks,
    cpuCount: firstProcStat?.cpuCount ?? 1,
    nvidiaSmi: { driverVersion: facts.driverVersion, cudaVersion: facts.cudaVersion },
    samples: { kept: 0, failed: 0, lastError: null },
    files: writer.files,
  };

  const record = async (sampleMs: number, document: string, procStat: ProcStat | undefined): Promise<void> => {
    const processes = procStat === undefined ? [] : processTrees(await readAllProcesses(procRoot), snapshotFacts(document).gpuPids);
    await writer.append(new Date(sampleMs).toISOString(), document, procStat, processes);
    manifest.samples.kept += 1;
  };
  const report = (error?: string): void => {
    options.onSample?.({ kept: manifest.samples.kept, failed: manifest.samples.failed, elapsedSeconds: (now() - startMs) / 1000, ...(error === undefined ? {} : { error }) });
  };

  try {
    await record(startMs, firstDocument, firstProcStat);
    await writer.writeManifest(manifest);
    report();

    const intervalMs = options.intervalSeconds * 1000;
    const endMs = startMs + options.durationSeconds * 1000;
    let slot = 1;
    for (;;) {
      // The next slot on the grid start + k * interval that is still ahead: a slow sample
      // skips slots rather than letting the schedule drift.
      slot = Math.max(slot, Math.ceil((now() - startMs) / intervalMs));
      const slotMs = startMs + slot * intervalMs;
      if (slotMs >= endMs || aborted()) break;
      try {
        await sleep(slotMs - now(), undefined, signal === undefined ? undefined : { signal });
      } catch {
        break; // aborted while waiting
      }
      slot += 1;
      const sampleMs = now();
      let document: string;
      try {
        document = await snapshot(signal);
      } catch (error) {
        // Ctrl-C on a terminal signals nvidia-smi too: its death can be seen before our own
        // handler has run, so give a pending signal a moment before calling it a failure.
        if (!aborted() && !(error instanceof SnapshotCanceled)) await sleep(SIGNAL_GRACE_MS);
        if (error instanceof SnapshotCanceled || aborted()) break;
        if (!(error instanceof InputError)) throw error;
        // A driver hiccup costs one sample, not the collection; the manifest counts it.
        manifest.samples.failed += 1;
        manifest.samples.lastError = error.message;
        report(error.message);
        continue;
      }
      // Not cancelled by the signal: a sample taken is written in full.
      await record(sampleMs, document, await readProcStat(procRoot));
      report();
    }
  } finally {
    await writer.close();
  }
  manifest.endedAt = new Date(now()).toISOString();
  manifest.complete = true;
  manifest.stoppedBy = aborted() ? 'signal' : 'duration';
  await writer.writeManifest(manifest);
  return { directory: options.directory, manifest };
}
