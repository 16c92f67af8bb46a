/**
 * Cuts a stream of XML text into documents and, in the same single pass, captures the
 * values a mapping reads (content-capture.ts), so a document needs no second parse.
 *
 * It is a drop-in for the plain splitter the tests keep as its reference
 * (test/helpers/xml-document-splitter.ts): same documents, numbers, lines, messages and
 * limits for every input, chunked anywhere. The difference is speed. Inside a root element, where nvidia-smi spends nearly
 * all of its bytes, a tag that lies whole in the chunk and has the usual shape (`<name>`,
 * `<name/>`, `</name>`) is read in one step: indexOf to the next '<', then the name checked
 * with one comparison, against the innermost open element for an end tag and against the
 * name that followed last time for a start tag (names.ts). No string is kept per tag.
 * Anything else (attributes, comments, a tag cut by the chunk's end, every error) goes
 * through the character state machine, with the splitter's messages (markup.ts holds
 * the pieces both share).
 *
 * A document is handed on with its `content` (the root's pruned tree) when the scanner
 * read it as fast-xml-parser would; otherwise `content` is absent and the caller parses
 * `rootText`, which is only joined when asked for. The scanner leaves a document to the
 * parser when it holds comments, processing instructions or CDATA inside the root,
 * element names the parser reads differently, a start tag whose name runs into something
 * other than space, '>' or '/>', nesting the parser refuses, or what the capture cannot
 * model. nvidia-smi prints none of these.
 */
import { KEEP, UNREADABLE, ContentCapture, type ReadPlan } from './content-capture.js';
import {
  BANG, BANG_CONSTRUCTS, BYTE_ORDER_MARK, CLOSE_BRACKET, DASH, DECLARATION, DOUBLE_QUOTE, GT, LT, LineCounter,
  MAX_DOCUMENT_CHARS, MAX_ELEMENT_DEPTH, OPEN_BRACKET, QUESTION, SINGLE_QUOTE, SLASH, excerpt, isNameChar, isNameStart,
  isXmlWhitespace, type DefectiveDocument, type MarkupState as State, type SplitterLimits, type WellFormedDocument,
} from './markup.js';
import { NameTable, type XmlName } from './names.js';
import type { XmlNode } from './tree.js';

export interface ScannedWellFormedDocument extends WellFormedDocument {
  /** What fast-xml-parser would give for the root element at every planned path; absent: parse `rootText`. */
  content?: XmlNode;
}

export type ScannedDocument = ScannedWellFormedDocument | DefectiveDocument;

/**
 * fast-xml-parser refuses a document nested more than 101 levels deep (its maxNestedTags,
 * 100, counts from the root's parent). From 97 levels on, a margin below, the scanner
 * leaves the document to it, so that the outcome is the parser's own.
 */
const PARSER_DEPTH_LIMIT = 96;

/** Pieces of text that may span chunks: `from` is where the open piece starts in the current chunk, -1 if none. */
class SpanningText {
  pieces: string[] = [];
  from = -1;

  start(at: number): void {
    this.pieces = [];
    this.from = at;
  }

  /** The text from the start up to `end` of the current chunk; stops collecting. */
  take(chunk: string, end: number): string {
    const last = chunk.slice(this.from, end);
    const text = this.pieces.length === 0 ? last : this.pieces.join('') + last;
    this.stop();
    return text;
  }

  stop(): void {
    this.pieces = [];
    this.from = -1;
  }

  /** At the end of a chunk: keeps its tail; the next chunk continues from its start. */
  carry(chunk: string): void {
    if (this.from === -1) return;
    this.pieces.push(chunk.slice(this.from));
    this.from = 0;
  }
}

export class XmlDocumentScanner {
  private readonly limits: SplitterLimits;
  private readonly capture: ContentCapture | undefined;
  private readonly names = new NameTable();
  private state: State = 'text';
  private chunk = '';
  private atInputStart = true;
  private readonly lines = new LineCounter();
  private emitted = 0;
  private output: ScannedDocument[] = [];

  // The current document.
  private openElements: XmlName[] = [];
  /** How many of the open elements (always the outermost ones) the capture keeps; -1 once the document is left to the parser. */
  private keptDepth = 0;
  /** The first text of the innermost kept element, while it is being read. */
  private readonly keptText = new SpanningText();
  /** The element that ended last, if nothing has started since (to guess the next name). */
  private lastClosed: XmlName | undefined;
  private documentStarted = false;
  private declarationSeen = false;
  private rootName: string | undefined;
  private rootLine = 0;
  private markupLine = 0;
  /** Chunk slices of the current root element before the current chunk; `retainFrom` is where it starts in this chunk. */
  private retained: string[] = [];
  private retainedChars = 0;
  private retainFrom = -1;

  // The construct being read by the state machine.
  private namePrefix = '';
  private nameStart = -1;
  private tagName = '';
  /** A start tag's text after its name, up to '>'. */
  private readonly attributes = new SpanningText();
  private bang = '';
  /** Consecutive '-' (comments) or ']' (CDATA) just read. */
  private runLength = 0;
  private quote = 0;
  private slashBeforeGt = false;
  private questionBeforeGt = false;
  private inSubset = false;
  private inSubsetComment = false;
  private subsetTail = '';
  private skipTail = '';

  private firstRoot: string | undefined;

  /** Without a plan the scanner only splits, like XmlDocumentSplitter. */
  constructor(plan?: ReadPlan, limits: Partial<SplitterLimits> = {}) {
    this.limits = { maxDocumentChars: MAX_DOCUMENT_CHARS, maxElementDepth: MAX_ELEMENT_DEPTH, ...limits };
    this.capture = plan === undefined ? undefined : new ContentCapture(plan);
    this.resetDocument();
  }

  /** Root name of the first document, known as soon as its start tag name is read (for detection). */
  get firstRootName(): string | undefined {
    return this.firstRoot;
  }

  /** Feeds the next chunk; returns the documents it completed. */
  push(text: string): ScannedDocument[] {
    this.output = [];
    let chunk = text;
    if (this.atInputStart && chunk.length > 0) {
      if (chunk.charCodeAt(0) === BYTE_ORDER_MARK) chunk = chunk.slice(1);
      this.atInputStart = false;
    }
    this.chunk = chunk;
    this.lines.startChunk(chunk);
    if (this.retainFrom !== -1) this.retainFrom = 0;
    if (this.nameStart !== -1) this.nameStart = 0;

    let index = 0;
    while (index < chunk.length) {
      index = this.state === 'text' && this.openElements.length > 0 ? this.scanContent(chunk, index) : this.step(chunk, index);
    }

    if (this.retainFrom !== -1) {
      const piece = chunk.slice(this.retainFrom);
      this.retained.push(piece);
      this.retainedChars += piece.length;
      if (this.retainedChars > this.limits.maxDocumentChars) {
        this.fault(chunk.length, `document is longer than ${this.limits.maxDocumentChars} characters; nvidia-smi documents are well under 1 MiB`);
      }
    }
    if (this.nameStart !== -1) this.namePrefix += chunk.slice(this.nameStart);
    this.keptText.carry(chunk);
    this.attributes.carry(chunk);
    return this.output;
  }

  /** Ends the input; returns the unfinished last document, if there is one, as defective. */
  finish(): ScannedDocument[] {
    this.output = [];
    const line = this.lines.lineAt(this.chunk.length);
    const innermost = this.openElements[this.openElements.length - 1];
    if (this.state === 'skip') {
      // The fault was reported when it was found.
    } else if (innermost !== undefined) {
      this.defect(line, `input ends inside <${innermost.text}> (expected </${innermost.text}>): the document is cut short`);
    } else if (this.state !== 'text') {
      this.defect(line, `input ends inside ${this.constructName()}: the document is cut short`);
    } else if (this.documentStarted) {
      this.defect(line, 'document has no root element (expected one after the XML declaration)');
    }
    this.resetDocument();
    this.state = 'text';
    return this.output;
  }

  /**
   * Ends a block of the input after which the input goes on with a `<?xml` line
   * (file-blocks.ts): returns what that declaration completes, as it would here (the document it
   * cuts short), and whether the next block can be read on its own. It can when the scanner
   * stands where a declaration starts a document (in text, between documents or inside a root's
   * content, or skipping to the next declaration): its scan then goes on as this one would. It
   * cannot inside any other construct (a comment or tag running on over a newline), whose end
   * only this scanner would find.
   */
  endBlock(): { documents: ScannedDocument[]; nextBlockAlone: boolean } {
    this.output = [];
    const nextBlockAlone = this.state === 'text' || this.state === 'skip';
    if (this.state === 'text') this.declaration(this.chunk.length);
    this.resetDocument();
    this.state = 'text';
    return { documents: this.output, nextBlockAlone };
  }

  /** Lines begun so far (the line the next character is on). */
  get line(): number {
    return this.lines.lineAt(this.chunk.length);
  }

  /** Documents handed on so far, defective ones included. */
  get documents(): number {
    return this.emitted;
  }

  /**
   * Inside the root element: reads whole, usual tags in one step each and returns where
   * the state machine must take over (at the '<' of anything else), or the chunk's end.
   * Reads stay below the chunk's length: charCodeAt past the end returns NaN, and V8 then
   * recompiles the loop with slower reads.
   */
  private scanContent(chunk: string, index: number): number {
    const length = chunk.length;
    let at = index;
    for (;;) {
      const lt = chunk.indexOf('<', at);
      if (lt === -1) return length;
      if (this.keptText.from !== -1) this.capture!.text(this.keptText.take(chunk, lt));
      const innermost = this.openElements[this.openElements.length - 1]!;
      if (lt + 1 < length && chunk.charCodeAt(lt + 1) === SLASH) {
        // An end tag can only name the innermost element. (substring and === is several
        // times faster than startsWith with a position in V8, and allocation is cheap.)
        const gt = lt + 2 + innermost.text.length;
        if (gt < length && chunk.charCodeAt(gt) === GT && chunk.substring(lt + 2, gt) === innermost.text) {
          this.tagName = innermost.text;
          this.closeElement(gt);
          if (this.openElements.length === 0) return gt + 1;
          at = gt + 1;
          continue;
        }
      } else {
        const gt = this.readUsualStartTag(chunk, lt, innermost);
        if (gt !== -1) {
          if (this.state !== 'text') return gt + 1;
          at = gt + 1;
          continue;
        }
      }
      this.state = 'markup-open';
      return lt + 1;
    }
  }

  /**
   * `<name>` or `<name/>` at `lt`, with a name seen before: opens the element and returns
   * the index of its '>'; -1 for any other tag. The name is first guessed from what
   * followed last time (names.ts), then looked up with all of the tag's text.
   */
  private readUsualStartTag(chunk: string, lt: number, innermost: XmlName): number {
    const length = chunk.length;
    const guess = this.lastClosed === undefined ? innermost.firstChild : this.lastClosed.successor;
    if (guess !== undefined) {
      const nameEnd = lt + 1 + guess.text.length;
      if (nameEnd < length) {
        const code = chunk.charCodeAt(nameEnd);
        const selfClosing = code === SLASH && nameEnd + 1 < length && chunk.charCodeAt(nameEnd + 1) === GT;
        if ((code === GT || selfClosing) && chunk.substring(lt + 1, nameEnd) === guess.text) {
          const gt = selfClosing ? nameEnd + 1 : nameEnd;
          this.tagName = guess.text;
          this.openElement(guess, gt, selfClosing, '');
          return gt;
        }
      }
    }
    const gt = chunk.indexOf('>', lt + 1);
    if (gt === -1) return -1;
    const selfClosing = chunk.charCodeAt(gt - 1) === SLASH;
    // Every known name is a whole XML name, so a match means nothing else is in the tag.
    const name = this.names.known(chunk.substring(lt + 1, selfClosing ? gt - 1 : gt));
    if (name === undefined) return -1;
    this.tagName = name.text;
    this.openElement(name, gt, selfClosing, '');
    return gt;
  }

  private step(chunk: string, index: number): number {
    switch (this.state) {
      case 'text': return this.scanText(chunk, index);
      case 'markup-open': return this.scanMarkupOpen(chunk, index);
      case 'bang': return this.scanBang(chunk, index);
      case 'comment': return this.scanUntilDoubledThenGt(chunk, index, DASH);
      case 'cdata': return this.scanUntilDoubledThenGt(chunk, index, CLOSE_BRACKET);
      case 'pi-target': return this.scanPiTarget(chunk, index);
      case 'pi': return this.scanPi(chunk, index);
      case 'doctype': return this.scanDoctype(chunk, index);
      case 'start-tag-name': return this.scanStartTagName(chunk, index);
      case 'start-tag': return this.scanStartTag(chunk, index);
      case 'end-tag-name': return this.scanEndTagName(chunk, index);
      case 'end-tag': return this.scanEndTag(chunk, index);
      case 'skip': return this.scanSkip(chunk, index);
    }
  }

  /** Outside the root only whitespace may stand between markup. */
  private scanText(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (code === LT) {
        this.beginMarkup(at);
        return at + 1;
      }
      if (!isXmlWhitespace(code) && code !== BYTE_ORDER_MARK) {
        const where = this.rootName === undefined ? 'before the root element' : 'after the root element';
        return this.fault(at, `expected '<' but found text ${excerpt(chunk, at)} ${where}`);
      }
    }
    return chunk.length;
  }

  /** Outside the root only: inside it, scanContent hands over with the state already set. */
  private beginMarkup(at: number): void {
    this.state = 'markup-open';
    this.documentStarted = true;
    this.markupLine = this.lines.lineAt(at);
    this.retained = [];
    this.retainedChars = 0;
    this.retainFrom = at;
  }

  /** A comment, PI or DOCTYPE ended: in the prolog it is not kept. */
  private endMarkup(): void {
    this.state = 'text';
    if (this.openElements.length === 0) {
      this.retained = [];
      this.retainedChars = 0;
      this.retainFrom = -1;
    }
  }

  private scanMarkupOpen(chunk: string, index: number): number {
    const code = chunk.charCodeAt(index);
    if (code === SLASH) {
      this.state = 'end-tag-name';
      this.nameStart = index + 1;
    } else if (code === QUESTION) {
      this.state = 'pi-target';
      this.nameStart = index + 1;
    } else if (code === BANG) {
      this.state = 'bang';
      this.bang = '';
    } else if (isNameStart(code)) {
      this.state = 'start-tag-name';
      this.nameStart = index;
    } else {
      return this.fault(index, `expected a tag name after '<' but found ${excerpt(chunk, index)}`);
    }
    return index + 1;
  }

  private scanBang(chunk: string, index: number): number {
    this.bang += chunk.charAt(index);
    const inRoot = this.openElements.length > 0;
    if (this.bang === '--') {
      if (inRoot) this.leaveToParser();
      this.state = 'comment';
      this.runLength = 0;
    } else if (this.bang === '[CDATA[') {
      if (!inRoot) return this.fault(index, 'expected the root element but found a CDATA section');
      this.leaveToParser();
      this.state = 'cdata';
      this.runLength = 0;
    } else if (this.bang === 'DOCTYPE') {
      if (inRoot || this.rootName !== undefined) return this.fault(index, 'a DOCTYPE may only precede the root element');
      this.state = 'doctype';
      this.quote = 0;
      this.inSubset = false;
      this.inSubsetComment = false;
      this.subsetTail = '';
    } else if (!BANG_CONSTRUCTS.some((construct) => construct.startsWith(this.bang))) {
      return this.fault(index, `expected <!--, <![CDATA[ or <!DOCTYPE but found "<!${this.bang}"`);
    }
    return index + 1;
  }

  /** Comments end at `-->`, CDATA at `]]>`: two of a character, then '>'. */
  private scanUntilDoubledThenGt(chunk: string, index: number, doubled: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (code === doubled) {
        this.runLength += 1;
      } else if (code === GT && this.runLength >= 2) {
        this.endMarkup();
        return at + 1;
      } else {
        this.runLength = 0;
      }
    }
    return chunk.length;
  }

  private scanPiTarget(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (!isXmlWhitespace(code) && code !== QUESTION) continue;
      const target = this.takeName(chunk, at);
      if (target === '') return this.fault(at, "expected a processing-instruction target after '<?'");
      if (target === 'xml') this.declaration(at);
      else if (this.openElements.length > 0) this.leaveToParser();
      this.state = 'pi';
      this.questionBeforeGt = code === QUESTION;
      return at + 1;
    }
    return chunk.length;
  }

  /** `<?xml` starts a document. Seen inside one, the previous document was cut off mid-write. */
  private declaration(at: number): void {
    const innermost = this.openElements[this.openElements.length - 1];
    if (innermost !== undefined) {
      this.defect(this.lines.lineAt(at), `a new document begins inside <${innermost.text}> (expected </${innermost.text}>): the document is cut short`);
      this.resetDocument();
    } else if (this.declarationSeen) {
      this.defect(this.lines.lineAt(at), 'a new document begins before this one had a root element: the document is cut short');
      this.resetDocument();
    }
    this.documentStarted = true;
    this.declarationSeen = true;
  }

  private scanPi(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (code === GT && this.questionBeforeGt) {
        this.endMarkup();
        return at + 1;
      }
      this.questionBeforeGt = code === QUESTION;
    }
    return chunk.length;
  }

  /** Reads past the DOCTYPE and any internal subset; quoted literals and subset comments may hold '>' or ']'. */
  private scanDoctype(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (this.quote !== 0) {
        if (code === this.quote) this.quote = 0;
      } else if (this.inSubsetComment) {
        if (code === GT && this.runLength >= 2) this.inSubsetComment = false;
        this.runLength = code === DASH ? this.runLength + 1 : 0;
      } else if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
        this.quote = code;
      } else if (code === OPEN_BRACKET) {
        this.inSubset = true;
      } else if (code === CLOSE_BRACKET) {
        this.inSubset = false;
      } else if (code === GT && !this.inSubset) {
        this.endMarkup();
        return at + 1;
      } else if (this.inSubset) {
        this.subsetTail = (this.subsetTail + chunk.charAt(at)).slice(-4);
        if (this.subsetTail === '<!--') {
          this.inSubsetComment = true;
          this.runLength = 0;
          this.subsetTail = '';
        }
      }
    }
    return chunk.length;
  }

  private scanStartTagName(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      if (isNameChar(chunk.charCodeAt(at))) continue;
      this.tagName = this.takeName(chunk, at);
      if (this.openElements.length === 0 && this.emitted === 0 && this.firstRoot === undefined) {
        this.firstRoot = this.tagName;
      }
      this.state = 'start-tag';
      this.quote = 0;
      this.slashBeforeGt = false;
      this.attributes.start(at);
      return at;
    }
    return chunk.length;
  }

  private scanStartTag(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (this.quote !== 0) {
        if (code === this.quote) this.quote = 0;
        else if (code === LT) return this.fault(at, `expected the closing quote of an attribute of <${this.tagName}> but found '<'`);
        continue;
      }
      if (code === GT) {
        const selfClosing = this.slashBeforeGt;
        const afterName = this.attributes.take(chunk, at);
        const name = this.names.intern(this.tagName);
        // fast-xml-parser ends a name only at a space or '>' (after dropping a final '/'): `<a/x>` names "a/x" there.
        if (!(afterName === '' || afterName === '/' || isXmlWhitespace(afterName.charCodeAt(0)))) this.leaveToParser();
        this.openElement(name, at, selfClosing, selfClosing ? afterName.slice(0, -1) : afterName);
        return at + 1;
      }
      if (code === LT) return this.fault(at, `expected '>' to end the start tag <${this.tagName}> but found '<'`);
      if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) this.quote = code;
      this.slashBeforeGt = code === SLASH;
    }
    return chunk.length;
  }

  private openElement(name: XmlName, gtIndex: number, selfClosing: boolean, attributeText: string): void {
    this.state = 'text';
    const depth = this.openElements.length;
    if (this.lastClosed !== undefined) this.lastClosed.successor = name;
    else if (depth > 0) this.openElements[depth - 1]!.firstChild = name;
    this.lastClosed = selfClosing ? name : undefined;
    if (!name.plain || depth >= PARSER_DEPTH_LIMIT) this.leaveToParser();
    if (depth === this.keptDepth) {
      const keep = this.capture!.open(name.text, attributeText, selfClosing);
      if (keep === UNREADABLE) {
        this.leaveToParser();
      } else if (keep === KEEP) {
        this.keptDepth += 1;
        this.keptText.start(gtIndex + 1);
      }
    }
    if (depth === 0) {
      this.rootName = name.text;
      this.rootLine = this.markupLine;
      if (selfClosing) {
        this.completeDocument(gtIndex);
        return;
      }
    }
    if (selfClosing) return;
    if (depth >= this.limits.maxElementDepth) {
      this.fault(gtIndex, `elements are nested deeper than ${this.limits.maxElementDepth} levels`);
      return;
    }
    this.openElements.push(name);
  }

  private scanEndTagName(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      if (isNameChar(chunk.charCodeAt(at))) continue;
      this.tagName = this.takeName(chunk, at);
      if (this.tagName === '') return this.fault(at, "expected a tag name after '</'");
      this.state = 'end-tag';
      return at;
    }
    return chunk.length;
  }

  private scanEndTag(chunk: string, index: number): number {
    for (let at = index; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (isXmlWhitespace(code)) continue;
      if (code !== GT) return this.fault(at, `expected '>' to end </${this.tagName} but found ${excerpt(chunk, at)}`);
      return this.closeElement(at);
    }
    return chunk.length;
  }

  private closeElement(gtIndex: number): number {
    const innermost = this.openElements[this.openElements.length - 1];
    if (innermost === undefined) return this.fault(gtIndex, `found </${this.tagName}> outside any element (expected a root element)`);
    if (innermost.text !== this.tagName) return this.fault(gtIndex, `expected </${innermost.text}> but found </${this.tagName}>`);
    if (this.openElements.length === this.keptDepth) {
      this.capture!.close();
      this.keptDepth -= 1;
    }
    this.openElements.pop();
    this.lastClosed = innermost;
    this.state = 'text';
    if (this.openElements.length === 0) this.completeDocument(gtIndex);
    return gtIndex + 1;
  }

  private completeDocument(gtIndex: number): void {
    const pieces = this.retained;
    pieces.push(this.chunk.slice(this.retainFrom, gtIndex + 1));
    let rootText: string | undefined;
    this.emitted += 1;
    const document: ScannedWellFormedDocument = {
      wellFormed: true,
      number: this.emitted,
      rootName: this.tagName,
      // Joined only for a document the capture could not read.
      get rootText(): string {
        rootText ??= pieces.length === 1 ? pieces[0]! : pieces.join('');
        return rootText;
      },
      rootLine: this.rootLine,
    };
    const content = this.keptDepth === -1 ? undefined : this.capture?.root(this.tagName);
    if (content !== undefined) document.content = content;
    this.output.push(document);
    this.resetDocument();
  }

  /** Looks for the next `<?xml`, which may straddle chunks. */
  private scanSkip(chunk: string, index: number): number {
    let found = -1;
    if (this.skipTail !== '') {
      const joined = this.skipTail + chunk.slice(index, index + DECLARATION.length - 1);
      const at = joined.indexOf(DECLARATION);
      if (at !== -1) found = index + at - this.skipTail.length;
    }
    if (found === -1) found = chunk.indexOf(DECLARATION, index);
    if (found === -1) {
      this.skipTail = (this.skipTail + chunk.slice(Math.max(index, chunk.length - DECLARATION.length + 1))).slice(-(DECLARATION.length - 1));
      return chunk.length;
    }
    // Resume as if '<?' had just been read, with the target's first letters already taken.
    const afterDeclaration = found + DECLARATION.length;
    this.skipTail = '';
    this.documentStarted = true;
    this.markupLine = this.lines.lineAt(Math.max(index, found));
    this.state = 'pi-target';
    this.namePrefix = 'xml';
    this.nameStart = afterDeclaration;
    return afterDeclaration;
  }

  private takeName(chunk: string, end: number): string {
    const name = this.namePrefix + chunk.slice(this.nameStart, end);
    this.namePrefix = '';
    this.nameStart = -1;
    return name;
  }

  private constructName(): string {
    switch (this.state) {
      case 'comment': return 'a comment (expected -->)';
      case 'cdata': return 'a CDATA section (expected ]]>)';
      case 'pi-target':
      case 'pi': return 'a processing instruction (expected ?>)';
      case 'doctype': return 'the DOCTYPE (expected >)';
      case 'start-tag-name':
      case 'start-tag': return `the start tag <${this.tagName || this.namePrefix} (expected >)`;
      default: return 'a tag (expected >)';
    }
  }

  /** The current document holds something the capture does not model: the parser will read it. */
  private leaveToParser(): void {
    this.keptDepth = -1;
    this.keptText.stop();
  }

  private defect(line: number, problem: string): void {
    this.emitted += 1;
    this.output.push({ wellFormed: false, number: this.emitted, problem, line });
  }

  /** Reports the current document as defective and skips to the next declaration. Returns where scanning resumes. */
  private fault(at: number, problem: string): number {
    this.defect(this.lines.lineAt(at), problem);
    this.resetDocument();
    this.state = 'skip';
    this.skipTail = '';
    return at;
  }

  private resetDocument(): void {
    this.openElements = [];
    this.lastClosed = undefined;
    this.keptDepth = this.capture === undefined ? -1 : 0;
    this.capture?.reset();
    this.keptText.stop();
    this.attributes.stop();
    this.documentStarted = false;
    this.declarationSeen = false;
    this.rootName = undefined;
    this.retained = [];
    this.retainedChars = 0;
    this.retainFrom = -1;
    this.namePrefix = '';
    this.nameStart = -1;
  }
}
