/**
 * Writes a collect bundle as sampling goes: each sample is appended (and synced) as it
 * comes, so a crash loses at most the sample in flight; the manifest is replaced
 * atomically, first when sampling starts and again when it ends.
 */
import { mkdir, open, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../support/index.js';
import { writeFileAtomic } from '../support/index.js';
import { BUNDLE_MANIFEST_FILE, CPU_TIME_FIELDS, type BundleManifest } from '../model/index.js';
import type { ProcStat, TreeProcess } from './proc.js';

export const XML_FILE = 'nvidia-smi.xml';
export const PROC_STAT_FILE = 'proc-stat.csv';
export const PROCESSES_FILE = 'processes.csv';

export const PROC_STAT_HEADER = ['timestamp', ...CPU_TIME_FIELDS.map((field) => `${field}_ticks`), 'cpus'];
export const PROCESSES_HEADER = ['timestamp', 'gpu_pid', 'pid', 'ppid', 'comm', 'state', 'utime_ticks', 'stime_ticks', 'threads', 'start_ticks'];

export const BUNDLE_FILES: BundleManifest['files'] = [
  { name: XML_FILE, format: 'nvidia-smi-xml', description: 'nvidia-smi -q -x documents, one per sample, appended as an -l log' },
  { name: PROC_STAT_FILE, format: 'proc-stat-csv', description: 'the aggregate cpu line of /proc/stat per sample, cumulative ticks' },
  { name: PROCESSES_FILE, format: 'process-cpu-csv', description: 'GPU processes and their descendants per sample, from /proc/<pid>/stat, cumulative ticks' },
];

/** RFC 4180; data, not a spreadsheet export, so names are kept exactly (no formula guard). */
function csvRow(values: readonly (string | number)[]): string {
  return `${values.map((value) => {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }).join(',')}\n`;
}

export class BundleWriter {
  private constructor(
    readonly directory: string,
    private readonly xml: FileHandle,
    private readonly procStat: FileHandle | undefined,
    private readonly processes: FileHandle | undefined,
  ) {}

  /**
   * Creates the bundle directory (it must be new or empty: a bundle is never mixed
   * with other files) and its data files. Without procfs only the XML is written.
   */
  static async create(directory: string, withProc: boolean): Promise<BundleWriter> {
    const existing = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw new InputError(`cannot use as the bundle directory (${error.code ?? String(error)})`, { file: directory, cause: error });
    });
    if (existing.length > 0) throw new InputError('the bundle directory already exists and is not empty: name a new one with -o', { file: directory });
    const create = async (name: string, header?: string): Promise<FileHandle> => {
      const handle = await open(path.join(directory, name), 'wx');
      if (header !== undefined) await handle.write(header);
      return handle;
    };
    try {
      await mkdir(directory, { recursive: true });
      const xml = await create(XML_FILE);
      if (!withProc) return new BundleWriter(directory, xml, undefined, undefined);
      return new BundleWriter(directory, xml, await create(PROC_STAT_FILE, csvRow(PROC_STAT_HEADER)), await create(PROCESSES_FILE, csvRow(PROCESSES_HEADER)));
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(`cannot create the bundle (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { file: directory, cause: error });
    }
  }

  /** The files this bundle holds, for the manifest. */
  get files(): BundleManifest['files'] {
    return BUNDLE_FILES.filter((file) => file.format === 'nvidia-smi-xml' || this.procStat !== undefined);
  }

  /** Appends one sample; the XML is synced so the document survives a crash right after. */
  async append(timestamp: string, document: string, procStat: ProcStat | undefined, processes: readonly TreeProcess[]): Promise<void> {
    try {
      await this.appendUnchecked(timestamp, document, procStat, processes);
    } catch (error) {
      // Disk full, directory removed under us: the samples written so far stay readable.
      throw new InputError(`cannot write the bundle (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { file: this.directory, cause: error });
    }
  }

  private async appendUnchecked(timestamp: string, document: string, procStat: ProcStat | undefined, processes: readonly TreeProcess[]): Promise<void> {
    await this.xml.write(document.endsWith('\n') ? document : `${document}\n`);
    await this.xml.datasync();
    if (this.procStat !== undefined && procStat !== undefined) {
      await this.procStat.write(csvRow([timestamp, ...CPU_TIME_FIELDS.map((field) => procStat.cpu[field]), procStat.cpuCount]));
    }
    if (this.processes !== undefined && processes.length > 0) {
      const rows = processes.map((stat) => csvRow([timestamp, stat.gpuPid, stat.pid, stat.ppid, stat.comm, stat.state, stat.utimeTicks, stat.stimeTicks, stat.threads, stat.startTicks]));
      await this.processes.write(rows.join(''));
    }
  }

  async writeManifest(manifest: BundleManifest): Promise<void> {
    await writeFileAtomic(path.join(this.directory, BUNDLE_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  }

  /** Syncs and closes the data files. */
  async close(): Promise<void> {
    for (const handle of [this.xml, this.procStat, this.processes]) {
      if (handle === undefined) continue;
      await handle.sync();
      await handle.close();
    }
  }
}
