/**
 * `-o FILE` must never destroy what the same run reads: `audit in.xml -o in.xml`, a report
 * written into the directory being audited, `check --baseline r.json -o r.json`, a link to an
 * input, or a glob that matches the target. The output is compared with every input, config
 * and baseline before anything is read, through links (by device and inode where the output
 * exists, by real path where it does not), and the run is refused with exit 2.
 */
import { realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { InputError } from '../support/index.js';
import { resolveInputs, STDIN_REF } from '../sources/index.js';

/** One thing the run reads, with the words that name it in a refusal (`a source`, `--baseline`). */
export interface ReadPath {
  path: string;
  role: string;
}

interface OutputIdentity {
  /** The real path the output would be written at. */
  real: string;
  /** `dev:ino` of the file there now; undefined when none exists yet. */
  inode: string | undefined;
}

const inodeOf = (info: Stats): string => `${info.dev}:${info.ino}`;

async function statOrUndefined(file: string): Promise<Stats | undefined> {
  return stat(file).catch(() => undefined);
}

/** Undefined for an output that is no file (a device, a FIFO, stdout): written in place, it cannot be an input. */
async function identityOf(output: string): Promise<OutputIdentity | undefined> {
  const info = await statOrUndefined(output);
  if (info !== undefined) return info.isFile() ? { real: await realpath(output), inode: inodeOf(info) } : undefined;
  const parent = await realpath(path.dirname(output)).catch(() => path.resolve(path.dirname(output)));
  return { real: path.join(parent, path.basename(output)), inode: undefined };
}

function isInside(file: string, directory: string): boolean {
  const relative = path.relative(directory, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** Why `output` would overwrite `input`, or undefined when it would not. */
async function conflict(output: OutputIdentity, input: ReadPath): Promise<string | undefined> {
  if (input.path === STDIN_REF) return undefined;
  const info = await statOrUndefined(input.path);
  if (info?.isDirectory() === true) {
    const directory = await realpath(input.path);
    if (isInside(output.real, directory)) return `it lies inside ${input.path}, ${input.role} that is read as a whole`;
  }
  if (info?.isFile() === true) {
    if (output.inode === undefined ? (await realpath(input.path)) === output.real : inodeOf(info) === output.inode) return `it is ${input.role}`;
    return undefined;
  }
  // A directory's files (links among them) and a glob's matches: only an output that exists can be one.
  if (output.inode === undefined) return undefined;
  const found = await resolveInputs([input.path]).catch(() => []);
  for (const file of found) {
    const fileInfo = file.path === undefined ? undefined : await statOrUndefined(file.path);
    if (fileInfo !== undefined && inodeOf(fileInfo) === output.inode) return `it is ${file.path}, found through ${input.role} ${input.path}`;
  }
  return undefined;
}

/** Refuses the run (InputError, exit 2) when any of `outputs` would overwrite one of the paths it reads. */
export async function refuseOutputOntoReads(outputs: string | readonly (string | undefined)[] | undefined, reads: readonly ReadPath[]): Promise<void> {
  for (const output of typeof outputs === 'string' || outputs === undefined ? [outputs] : outputs) await refuseOneOutput(output, reads);
}

async function refuseOneOutput(output: string | undefined, reads: readonly ReadPath[]): Promise<void> {
  if (output === undefined || output === STDIN_REF) return;
  const identity = await identityOf(output);
  if (identity === undefined) return;
  for (const read of reads) {
    const reason = await conflict(identity, read);
    if (reason !== undefined) {
      throw new InputError(`-o would overwrite what this run reads (${reason}); nothing was read or written: name another output`, { file: output });
    }
  }
}
