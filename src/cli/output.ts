import { writeFileAtomic } from '../report/write-output.js';
import type { CliIo } from './io.js';

/** Writes a rendered output to stdout, or atomically to a file (never half-written). */
export async function emitOutput(io: CliIo, text: string, outputFile: string | undefined): Promise<void> {
  if (outputFile === undefined || outputFile === '-') {
    io.stdout(text);
    return;
  }
  await writeFileAtomic(outputFile, text);
}
