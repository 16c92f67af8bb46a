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
import { InputError } from '../../support/index.js';
import type { ObservationSink } from '../../model/index.js';
import type { BlockResult, BlockStart, FileEnd, ParseResult, SourceContext, SourceParser } from '../types.js';
import { XmlDocumentScanner, type ScannedDocument } from '../lexers/xml/document-scanner.js';
import { DECLARATION, type DefectiveDocument } from '../lexers/xml/markup.js';
import { NVIDIA_SMI_READ_PLAN, NvidiaSmiDocumentMapper } from '../lexers/xml/nvidia-smi-document.js';
import { parseRootElement, type XmlNode } from '../lexers/xml/tree.js';

const ROOT = 'nvidia_smi_log';

/**
 * Where documents come from: XmlDocumentScanner in production; XmlDocumentSplitter
 * (every document through fast-xml-parser) is the reference the tests compare it with.
 */
export interface XmlDocumentSource {
  push(text: string): ScannedDocument[];
  finish(): ScannedDocument[];
}

/**
 * A DOCTYPE names the root element before its internal subset, which may run past the head
 * (a 100 KB subset is valid XML): the name, read without expanding anything, is enough.
 */
const DOCTYPE_OF_ROOT = new RegExp(`^\\uFEFF?\\s*(?:<\\?xml[^>]*\\?>\\s*)?(?:<!--(?:[^-]|-(?!->))*-->\\s*)*<!DOCTYPE\\s+${ROOT}[\\s\\[>]`, 'u');

function detect(head: string): boolean {
  const scanner = new XmlDocumentScanner();
  scanner.push(head);
  return scanner.firstRootName === ROOT || DOCTYPE_OF_ROOT.test(head);
}

/** The location every message about one document carries. */
function location(document: number, line?: number): string {
  return line === undefined ? `document ${document}` : `document ${document}, line ${line}`;
}

/** Reads an nvidia-smi XML log from the documents `source` cuts it into. */
export async function readNvidiaSmiLog(
  chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, source: XmlDocumentSource,
): Promise<ParseResult> {
  const log = new LogReader(context, sink);
  for await (const chunk of chunks) log.handleAll(source.push(chunk));
  log.handleAll(source.finish());
  const end = log.fileEnd();
  if (log.documentsRead === 0) throw new InputError(end.noRecords.message, { file: context.ref, location: end.noRecords.location });
  if (end.warning !== undefined) sink.warn(end.warning);
  return { records: log.documentsRead };
}

/** Maps the documents of one log (or one block of it) to observations, one at a time. */
class LogReader {
  // An -l log repeats the same fields every interval: report each distinct value problem once.
  private readonly reported = new Set<string>();
  private readonly mapper: NvidiaSmiDocumentMapper;
  documentsRead = 0;
  // A defective document is only fatal if it turns out to be the last one and nothing was read.
  private unreadable: DefectiveDocument | undefined;

  constructor(
    context: SourceContext,
    private readonly sink: ObservationSink,
  ) {
    this.mapper = new NvidiaSmiDocumentMapper(context.host, context.timeZone, sink, (document, message) => {
      if (this.reported.has(message)) return;
      this.reported.add(message);
      sink.warn({ location: location(document), message });
    });
  }

  handleAll(documents: readonly ScannedDocument[]): void {
    for (const document of documents) this.handle(document);
  }

  /** Warns about the defective document before this one, now known not to be the last. */
  warnUnreadable(): void {
    const { unreadable } = this;
    if (unreadable === undefined) return;
    this.sink.warn({ location: location(unreadable.number, unreadable.line), message: `${unreadable.problem}; document skipped` });
    this.unreadable = undefined;
  }

  /**
   * What the end of the input means: the warning about a defective last document, unless no
   * document was read at all, which makes the input unreadable (the caller knows whether any was).
   */
  fileEnd(): FileEnd {
    const { unreadable } = this;
    this.unreadable = undefined;
    if (unreadable !== undefined) {
      return {
        warning: { location: location(unreadable.number, unreadable.line), message: `${unreadable.problem}; document skipped` },
        noRecords: { message: unreadable.problem, location: location(unreadable.number, unreadable.line) },
      };
    }
    return { noRecords: { message: `no <${ROOT}> document found (expected the output of nvidia-smi -q -x)`, location: undefined } };
  }

  private handle(document: ScannedDocument): void {
    this.warnUnreadable();
    if (!document.wellFormed) {
      this.unreadable = document;
      return;
    }
    if (document.rootName !== ROOT) {
      this.sink.warn({ location: location(document.number, document.rootLine), message: `root element is <${document.rootName}>, not <${ROOT}>; document skipped` });
      return;
    }
    let root: XmlNode | undefined = document.content;
    try {
      root ??= parseRootElement(document.rootText, ROOT);
    } catch (error) {
      // Well-formed, yet refused (e.g. a `__proto__` element name): as unreadable as a broken document.
      const reason = error instanceof Error ? error.message : String(error);
      this.unreadable = { wellFormed: false, number: document.number, line: document.rootLine, problem: `the XML parser rejected the document: ${reason}` };
      return;
    }
    this.mapper.map(root, document.number);
    this.documentsRead += 1;
  }
}

function parse(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink): Promise<ParseResult> {
  return readNvidiaSmiLog(chunks, context, sink, new XmlDocumentScanner(NVIDIA_SMI_READ_PLAN));
}

/**
 * One block of a long log (SourceParser.blocks): blocks start at a `<?xml` line, and an
 * nvidia-smi document needs nothing from the ones before it. The block after this one can be read
 * on its own unless this one ends inside a construct that runs on over its last newline (never in
 * what nvidia-smi writes): the reader then reads the rest of the file from this block's start.
 */
async function parseBlock(chunks: AsyncIterable<string>, context: SourceContext, sink: ObservationSink, start: BlockStart): Promise<BlockResult> {
  const scanner = new XmlDocumentScanner(NVIDIA_SMI_READ_PLAN);
  const log = new LogReader(context, sink);
  for await (const chunk of chunks) log.handleAll(scanner.push(chunk));
  const counts = { lines: scanner.line - 1, state: undefined, suppressedWarnings: 0 };
  if (start.last) {
    log.handleAll(scanner.finish());
    return { ...counts, records: log.documentsRead, documents: scanner.documents, fileEnd: log.fileEnd() };
  }
  const end = scanner.endBlock();
  log.handleAll(end.documents);
  // The next document, in the next block, would warn about this block's last one now.
  log.warnUnreadable();
  return { ...counts, records: log.documentsRead, documents: scanner.documents, runsOver: !end.nextBlockAlone };
}

export const nvidiaSmiXml: SourceParser = {
  format: 'nvidia-smi-xml',
  description: 'nvidia-smi -q -x XML',
  detect,
  parse,
  // Whole reads: a document (some 100 KB of an 8-GPU node) that lies inside one chunk is a slice
  // of it, while one cut across chunks is copied to be joined; faster, for a little more peak
  // memory (bench/MEASUREMENTS.md).
  textPieceBytes: Number.POSITIVE_INFINITY,
  blocks: {
    lineMarker: DECLARATION,
    initialState: () => undefined,
    mayRunOver: true,
    // Located at a document, without a line: a value problem, which a log reports once (LogReader).
    oncePerFile: (warning) => /^document \d+$/.test(warning.location),
    parseBlock: (chunks, context, sink, start) => parseBlock(chunks, context, sink, start),
  },
};
