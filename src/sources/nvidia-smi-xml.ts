/**
 * `nvidia-smi -q -x` output: one XML document, or an `-l` log of many documents
 * appended to one stream. Documents are split as the text streams in and mapped to
 * observations one at a time; memory holds one document at a time.
 *
 * The scanner that splits them also captures the values the mapping reads, so a
 * document is normally not parsed a second time; one the scanner does not read the way
 * fast-xml-parser would (nvidia-smi never prints such a thing) is parsed by it instead.
 *
 * A document that is not well-formed is skipped with a warning (an `-l` log cut off
 * mid-write at its end is normal), unless nothing of the input could be read: then
 * the input is rejected with the document and line at fault.
 */
import { InputError } from '../model/errors.js';
import type { ObservationSink } from '../model/observations.js';
import type { ParseResult, SourceContext, SourceParser } from './types.js';
import { XmlDocumentScanner, type ScannedDocument } from './xml/document-scanner.js';
import type { DefectiveDocument } from './xml/markup.js';
import { NVIDIA_SMI_READ_PLAN, NvidiaSmiDocumentMapper } from './xml/nvidia-smi-document.js';
import { parseRootElement, type XmlNode } from './xml/tree.js';

const ROOT = 'nvidia_smi_log';

/**
 * Where documents come from: XmlDocumentScanner in production; XmlDocumentSplitter
 * (every document through fast-xml-parser) is the reference the tests compare it with.
 */
export interface XmlDocumentSource {
  push(text: string): ScannedDocument[];
  finish(): ScannedDocument[];
}

function detect(head: string): boolean {
  const scanner = new XmlDocumentScanner();
  scanner.push(head);
  return scanner.firstRootName === ROOT;
}

/** The location every message about one document carries. */
function location(document: number, line?: number): string {
  return line === undefined ? `document ${document}` : `document ${document}, line ${line}`;
}

/** Reads an nvidia-smi XML log from the documents `source` cuts it into. */
export async function readNvidiaSmiLog(
  chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, source: XmlDocumentSource,
): Promise<ParseResult> {
  // An -l log repeats the same fields every interval: report each distinct value problem once.
  const reported = new Set<string>();
  const mapper = new NvidiaSmiDocumentMapper(context.host, context.timeZone, sink, (document, message) => {
    if (reported.has(message)) return;
    reported.add(message);
    sink.warn({ location: location(document), message });
  });
  let documentsRead = 0;
  // A defective document is only fatal if it turns out to be the last one and nothing was read.
  let unreadable: DefectiveDocument | undefined;

  const warnUnreadable = (): void => {
    if (unreadable === undefined) return;
    sink.warn({ location: location(unreadable.number, unreadable.line), message: `${unreadable.problem}; document skipped` });
    unreadable = undefined;
  };

  const handle = (document: ScannedDocument): void => {
    warnUnreadable();
    if (!document.wellFormed) {
      unreadable = document;
      return;
    }
    if (document.rootName !== ROOT) {
      sink.warn({ location: location(document.number, document.rootLine), message: `root element is <${document.rootName}>, not <${ROOT}>; document skipped` });
      return;
    }
    let root: XmlNode | undefined = document.content;
    try {
      root ??= parseRootElement(document.rootText, ROOT);
    } catch (error) {
      // Well-formed, yet refused (e.g. a `__proto__` element name): as unreadable as a broken document.
      const reason = error instanceof Error ? error.message : String(error);
      unreadable = { wellFormed: false, number: document.number, line: document.rootLine, problem: `the XML parser rejected the document: ${reason}` };
      return;
    }
    mapper.map(root, document.number);
    documentsRead += 1;
  };

  for await (const chunk of chunks) {
    for (const document of source.push(chunk)) handle(document);
  }
  for (const document of source.finish()) handle(document);

  if (unreadable !== undefined && documentsRead === 0) {
    throw new InputError(unreadable.problem, { file: context.ref, location: location(unreadable.number, unreadable.line) });
  }
  warnUnreadable();
  if (documentsRead === 0) {
    throw new InputError(`no <${ROOT}> document found (expected the output of nvidia-smi -q -x)`, { file: context.ref });
  }
  return { records: documentsRead };
}

function parse(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink): Promise<ParseResult> {
  return readNvidiaSmiLog(chunks, context, sink, new XmlDocumentScanner(NVIDIA_SMI_READ_PLAN));
}

export const nvidiaSmiXml: SourceParser = {
  format: 'nvidia-smi-xml',
  description: 'nvidia-smi -q -x XML',
  detect,
  parse,
  // Whole reads: a document (some 100 KB of an 8-GPU node) that lies inside one chunk is a slice
  // of it, while one cut across chunks is copied to be joined. Measured on a 500 MB log: 3.2 s
  // in 64 KiB pieces, 2.9 s in whole 1 MiB reads (which Node makes external strings: one copy,
  // and 235 instead of 200 MiB peak RSS, as dead ones count towards a collection only past
  // some 64 MB).
  textPieceBytes: Number.POSITIVE_INFINITY,
};
