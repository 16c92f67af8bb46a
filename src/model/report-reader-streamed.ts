/**
 * Reads a saved report one GPU entry at a time: `gpu-audit report` reads it whole, `check
 * --baseline` for what a comparison needs (baseline.ts comparedPart). Read as one text, a
 * large fleet's report was its text, its parsed objects and zod's copy of them at once, more
 * than the audit that wrote it (bench/MEASUREMENTS.md).
 *
 * Each element of `gpus` is parsed, validated and kept (or cut down to what the caller needs) as
 * it ends (JsonElementSplitter), its parsed text let go; the rest of the document is parsed and validated at the end, as
 * read-report.ts does with a whole one, with the same messages and JSON paths. The writer
 * puts `schemaVersion` first in a report and `report` first in the output of `check --format
 * json`, which tells where `gpus` is before it comes; a file that starts otherwise (edited by
 * hand, keys reordered) is read whole.
 */
import { createReadStream } from 'node:fs';
import { InputError } from '../support/index.js';
import type { GpuEntry, Report } from './report.js';
import { JsonElementSplitter, JsonSplitError, jsonEndLocation, pieceSyntaxError, positionText } from '../support/index.js';
import { parseGpuEntryJson, parseReportJson, readReportFile, unreadableReport, jsonPath, reportPrefix, type GpusReadApart } from './report-reader.js';

const READ_CHUNK_BYTES = 1024 * 1024;
const REPORT_START = /^\s*\{\s*"schemaVersion"\s*:/u;
const CHECK_OUTPUT_START = /^\s*\{\s*"report"\s*:\s*\{\s*"schemaVersion"\s*:/u;
function notJson(error: unknown, file: string, location: string | undefined): InputError {
  return new InputError(`not JSON: ${pieceSyntaxError(error)}`, { file, location, cause: error });
}

/** Where `gpus` is in a saved report that starts with `head`, or undefined when the start does not tell. */
export function streamedGpusPath(head: string): string[] | undefined {
  if (REPORT_START.test(head)) return ['gpus'];
  if (CHECK_OUTPUT_START.test(head)) return ['report', 'gpus'];
  return undefined;
}

/**
 * The saved report `file`, as read-report.ts readReportFile reads it. `keep` may cut each GPU
 * entry down as it is read (a memory saving only: a file read whole keeps its entries whole).
 */
export async function readReportStreamed(file: string, keep: (gpu: GpuEntry) => GpuEntry = (gpu) => gpu): Promise<Report> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<string>;
  let first: IteratorResult<string>;
  try {
    first = await chunks.next();
  } catch (error) {
    throw unreadableReport(error, file);
  }
  const head = first.done === true ? '' : first.value.replace(/^\uFEFF/u, '');
  const gpusPath = streamedGpusPath(head);
  if (gpusPath === undefined) {
    stream.destroy();
    return readReportFile(file);
  }
  const checkOutput = gpusPath.length > 1;

  const apart: GpusReadApart = { gpus: [], error: undefined };
  const splitter = new JsonElementSplitter(gpusPath, {
    onArrayStart: () => {
      apart.gpus = [];
      apart.error = undefined;
    },
    onElement: (text, index) => {
      if (apart.error !== undefined) return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw notJson(error, file, jsonPath([...reportPrefix(checkOutput), 'gpus', index]));
      }
      try {
        apart.gpus.push(keep(parseGpuEntryJson(value, file, index, checkOutput)));
      } catch (error) {
        // Reported after the rest is checked: a problem before `gpus` comes first, as when read whole.
        if (!(error instanceof InputError)) throw error;
        apart.error = error;
      }
    },
  });
  let envelope: unknown;
  try {
    splitter.write(head);
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) splitter.write(next.value);
    envelope = JSON.parse(splitter.end());
  } catch (error) {
    stream.destroy();
    if (error instanceof InputError) throw error;
    if (error instanceof JsonSplitError) throw notJson(error, file, positionText(error.position));
    // JSON.parse saw the document without its GPU entries, whose offsets are not the file's; its end is.
    if (error instanceof SyntaxError) throw notJson(error, file, jsonEndLocation(error));
    throw unreadableReport(error, file);
  }
  return parseReportJson(envelope, file, apart);
}
