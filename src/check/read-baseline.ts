/**
 * The baseline of `check --baseline`: a saved report read entry by entry, keeping only what
 * the comparison reads (baseline.ts comparedPart). The reader brings zod: it loads on demand.
 */
import type { Report } from '../model/index.js';
import { comparedGpu, comparedPart } from './baseline.js';

export async function readComparedReport(file: string): Promise<Report> {
  const { readReportStreamed } = await import('../model/report-reader-streamed.js');
  return comparedPart(await readReportStreamed(file, comparedGpu));
}
