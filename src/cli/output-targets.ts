/**
 * Where `audit`, `check` and `report` write, and in which format: stdout in `--format`;
 * one `-o FILE` in `--format` where it was typed, else in the format its extension names
 * (else `--format`'s default); several `-o FILE`, each in the format of its extension, so one
 * run writes every CI output (`-o report.json -o gpu-audit.sarif -o gpu-audit.junit.xml`).
 * What cannot be told apart is refused before anything is read (exit 2, one line).
 */
import path from 'node:path';
import { InputError } from '../support/index.js';
import { formatOfFile, usualExtensions, type OutputFormat } from '../render/index.js';

export interface OutputTarget {
  format: OutputFormat;
  /** Undefined: stdout. */
  file: string | undefined;
}

/** commander's `-o` as typed: undefined, one string, or (repeatable) a list. */
export function outputFiles(output: unknown): unknown[] {
  return Array.isArray(output) ? (output as unknown[]) : [output];
}

export function outputTargets(options: { format: OutputFormat; output?: readonly string[] }, formatTyped: boolean): OutputTarget[] {
  const files = options.output ?? [];
  if (files.length === 0) return [{ format: options.format, file: undefined }];
  if (files.length === 1) {
    const file = files[0]!;
    if (file === '-') return [{ format: options.format, file: undefined }];
    return [{ format: formatTyped ? options.format : (formatOfFile(file) ?? options.format), file }];
  }
  if (formatTyped) throw new InputError(`--format with several -o: each -o FILE takes the format of its extension (${usualExtensions()}); drop --format`);
  const seen = new Set<string>();
  return files.map((file) => {
    if (file === '-') throw new InputError('-o - (stdout) with several -o: write each output to a file');
    const format = formatOfFile(file);
    if (format === undefined) throw new InputError(`-o ${file}: with several -o the format comes from the extension, and this one names none; use one of ${usualExtensions()}`);
    const resolved = path.resolve(file);
    if (seen.has(resolved)) throw new InputError(`-o ${file} given twice: each output needs its own file`);
    seen.add(resolved);
    return { format, file };
  });
}
