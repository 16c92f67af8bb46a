/**
 * One `nvidia-smi -q -x` document per call. `-l` is not used: each sample is started by
 * the collector's own clock, so a slow driver delays one sample instead of drifting all.
 */
import { InputError } from '../support/index.js';

/** A healthy driver answers in well under a second; a hung one must not hang the collection. */
export const NVIDIA_SMI_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

export const NVIDIA_SMI_MISSING = 'nvidia-smi not found on PATH: collect needs an NVIDIA driver; audit saved files instead';

/** nvidia-smi is not on PATH: each command that runs it says what that means for it. */
export class NvidiaSmiMissing extends InputError {
  constructor(cause: unknown) {
    super(NVIDIA_SMI_MISSING, { cause });
    this.name = 'NvidiaSmiMissing';
  }
}

/** Takes one snapshot; `signal` cancels a call in flight (the sample is then dropped). */
export type SnapshotTaker = (signal?: AbortSignal) => Promise<string>;

export const nvidiaSmiSnapshot: SnapshotTaker = async (signal) => {
  // execa is loaded only by the commands that run tools: it costs start-up time.
  const { execa } = await import('execa');
  let stdout: string;
  try {
    const result = await execa('nvidia-smi', ['-q', '-x'], {
      timeout: NVIDIA_SMI_TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT_BYTES,
      stripFinalNewline: false,
      ...(signal === undefined ? {} : { cancelSignal: signal }),
    });
    stdout = result.stdout;
  } catch (error) {
    const failure = error as { code?: string; shortMessage?: string; stderr?: unknown; isCanceled?: boolean };
    if (failure.code === 'ENOENT') throw new NvidiaSmiMissing(error);
    if (failure.isCanceled === true) throw new SnapshotCanceled();
    // nvidia-smi says what is wrong ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver") on stdout or stderr.
    const said = firstLine(typeof failure.stderr === 'string' ? failure.stderr : '') ?? firstLine((error as { stdout?: string }).stdout ?? '');
    throw new InputError(`nvidia-smi failed: ${failure.shortMessage ?? String(error)}${said === undefined ? '' : ` (${said})`}`, { cause: error });
  }
  if (!stdout.includes('<nvidia_smi_log')) {
    throw new InputError(`nvidia-smi -q -x printed no nvidia_smi_log document${describeOutput(stdout)}`);
  }
  return stdout;
};

/** Thrown when the collection was stopped while a snapshot was being taken. */
export class SnapshotCanceled extends Error {
  constructor() {
    super('nvidia-smi was stopped with the collection');
    this.name = 'SnapshotCanceled';
  }
}

function firstLine(text: string): string | undefined {
  const line = text.split('\n').map((part) => part.trim()).find((part) => part !== '');
  return line === undefined ? undefined : line.slice(0, 200);
}

function describeOutput(stdout: string): string {
  const line = firstLine(stdout);
  return line === undefined ? ' (its output was empty)' : `; it printed: ${line}`;
}

/** What the collector reads from a document: the processes to follow and the driver it came from. */
export interface SnapshotFacts {
  /** Distinct pids of the GPU processes, in document order. */
  gpuPids: number[];
  driverVersion: string | null;
  cudaVersion: string | null;
}

/**
 * nvidia-smi prints these elements on their own line with plain text content, so a
 * pattern is enough here; the document itself is stored untouched for the real parser.
 */
export function snapshotFacts(document: string): SnapshotFacts {
  const pids = [...document.matchAll(/<pid>\s*(\d+)\s*<\/pid>/g)].map((match) => Number(match[1]));
  const text = (element: string): string | null => {
    const value = new RegExp(`<${element}>([^<]*)</${element}>`).exec(document)?.[1]?.trim();
    return value === undefined || value === '' || value === 'N/A' ? null : value;
  };
  return { gpuPids: [...new Set(pids)], driverVersion: text('driver_version'), cudaVersion: text('cuda_version') };
}
