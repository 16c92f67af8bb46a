/**
 * (a) An `nvidia-smi -q -x -l 300` log of an 8-GPU node with processes: the demo fleet's
 * training node (fixtures/generate-demo.ts, 312 documents over 26 hours, about 137 KB each)
 * replayed day after day, each replay's `<timestamp>`s moved on by 26 hours, until the log
 * reaches the wanted size. The documents are the demo's, byte for byte, apart from the
 * timestamp, so the parser meets exactly the layout the rest of the project is tested on.
 */
import { buildDemoFleet } from '../../fixtures/generate-demo.js';
import type { ChunkWriter } from './writer.js';

const SOURCE_HOST = 'train-h100-01';
const REPLAY_PERIOD_MS = 26 * 3600 * 1000;
const TIMESTAMP = /<timestamp>([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})<\/timestamp>/;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A document cut around its timestamp, and that timestamp as wall-clock milliseconds. */
interface DocumentTemplate {
  before: string;
  wallClockMs: number;
  after: string;
}

/** C asctime, as nvidia-smi prints it: `Mon Nov  2 00:00:00 2026`. */
export function asctime(wallClockMs: number): string {
  const date = new Date(wallClockMs);
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${WEEKDAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, ' ')} `
    + `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} ${date.getUTCFullYear()}`;
}

let demoTemplates: DocumentTemplate[] | undefined;

/** The demo node's documents, built once per process (building the demo fleet takes about a second). */
function templates(): DocumentTemplate[] {
  demoTemplates ??= buildTemplates();
  return demoTemplates;
}

function buildTemplates(): DocumentTemplate[] {
  const log = buildDemoFleet().find((entry) => entry.host === SOURCE_HOST);
  if (log === undefined) throw new Error(`the demo fleet has no host ${SOURCE_HOST}`);
  return log.xml.split(/(?=<\?xml )/).map((document) => {
    const match = TIMESTAMP.exec(document);
    if (match === null) throw new Error('a demo document without a <timestamp>');
    const [, , month, day, hours, minutes, seconds, year] = match;
    const wallClockMs = Date.UTC(Number(year), MONTHS.indexOf(month!), Number(day), Number(hours), Number(minutes), Number(seconds));
    return {
      before: document.slice(0, match.index),
      wallClockMs,
      after: document.slice(match.index + match[0].length),
    };
  });
}

/** Writes whole documents until at least `targetBytes` are written (at least one document). */
export function writeNvidiaSmiXmlLog(out: ChunkWriter, targetBytes: number): void {
  const documents = templates();
  for (let replay = 0; ; replay += 1) {
    for (const document of documents) {
      const moved = asctime(document.wallClockMs + replay * REPLAY_PERIOD_MS);
      out.write(`${document.before}<timestamp>${moved}</timestamp>${document.after}`);
      if (out.bytes >= targetBytes) return;
    }
  }
}
