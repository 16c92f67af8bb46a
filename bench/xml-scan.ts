/**
 * Throughput of the nvidia-smi XML source on the demo logs (86 MB uncompressed), for the
 * scanner (production) and the reference path (every document through fast-xml-parser).
 * Gunzip is done up front and not timed; chunks are 16 KiB, as zlib hands them on. CPU
 * time is printed beside wall time: on a shared machine it is the steadier of the two.
 *
 *   npx tsx bench/xml-scan.ts [rounds]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ObservationSink } from '../src/model/observations.js';
import { readNvidiaSmiLog, type XmlDocumentSource } from '../src/sources/formats/nvidia-smi-xml.js';
import { XmlDocumentScanner } from '../src/sources/lexers/xml/document-scanner.js';
import { XmlDocumentSplitter } from '../test/helpers/xml-document-splitter.js';
import { NVIDIA_SMI_READ_PLAN } from '../src/sources/lexers/xml/nvidia-smi-document.js';

const CHUNK_CHARS = 16 * 1024;
const demo = new URL('../fixtures/demo/', import.meta.url);
const logs = readdirSync(demo).filter((name) => name.endsWith('.xml.gz')).map((name) => gunzipSync(readFileSync(new URL(name, demo))).toString('utf8'));
const megabytes = logs.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1e6;

async function* chunks(text: string): AsyncIterable<string> {
  for (let at = 0; at < text.length; at += CHUNK_CHARS) yield text.slice(at, at + CHUNK_CHARS);
}

const countingSink = { events: 0, device() { this.events += 1; }, sample() { this.events += 1; }, process() { this.events += 1; }, warn() { this.events += 1; } } satisfies ObservationSink & { events: number };

/** Counts the documents a scanner hands on without content (left to fast-xml-parser). */
function counted(source: XmlDocumentScanner, tally: { parsed: number }): XmlDocumentSource {
  const count = (documents: ReturnType<XmlDocumentSource['push']>) => {
    for (const document of documents) if (document.wellFormed && document.content === undefined) tally.parsed += 1;
    return documents;
  };
  return { push: (text) => count(source.push(text)), finish: () => count(source.finish()) };
}

const paths: [string, (tally: { parsed: number }) => XmlDocumentSource][] = [
  ['reference (splitter + fast-xml-parser)', () => new XmlDocumentSplitter()],
  ['scanner', (tally) => counted(new XmlDocumentScanner(NVIDIA_SMI_READ_PLAN), tally)],
];

const rounds = Number(process.argv[2] ?? 3);
for (const [label, source] of paths) {
  for (let round = 1; round <= rounds; round += 1) {
    const tally = { parsed: 0 };
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    for (const [index, text] of logs.entries()) {
      await readNvidiaSmiLog(chunks(text), { ref: `log-${index}`, host: `host-${index}`, timeZone: 'UTC' }, countingSink, source(tally));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStarted);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    console.log(
      `${label}, round ${round}: ${megabytes.toFixed(1)} MB, wall ${seconds.toFixed(3)} s = ${(megabytes / seconds).toFixed(0)} MB/s, `
      + `CPU ${cpuSeconds.toFixed(3)} s = ${(megabytes / cpuSeconds).toFixed(0)} MB/s (${tally.parsed} documents left to the parser)`,
    );
  }
}
