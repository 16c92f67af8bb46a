/**
 * Cuts a stream of XML text into documents as chunks arrive.
 *
 * `nvidia-smi -q -x -l N` appends one complete document per interval to the same
 * stream, each with its own `<?xml ...?>` and DOCTYPE, so the input is not one XML
 * document but a sequence of them. This scanner finds where each one ends by looking
 * at every character exactly once (chunk boundaries may fall anywhere, even inside a
 * tag name or `<?xml`), and holds only the current document's root element.
 *
 * It is also the well-formedness check: fast-xml-parser accepts a truncated document or
 * a mismatched end tag without complaint, so the scanner keeps the stack of open
 * elements and reports the first structural fault with its input line. After a fault
 * it skips to the next `<?xml` declaration, the only reliable start of a new document
 * in a log.
 *
 * The prolog (declaration, DOCTYPE, comments) is read past and never handed on: no
 * DTD, internal subset or entity declaration ever reaches the XML parser.
 *
 * Production reads through XmlDocumentScanner (src/sources/lexers/xml/document-scanner.ts),
 * which splits the same way and also captures the values read; this class is the plain
 * reference the tests and bench/xml-scan.ts hold it to. Both share src/sources/lexers/xml/markup.ts.
 */
import {
  BANG, BANG_CONSTRUCTS, BYTE_ORDER_MARK, CLOSE_BRACKET, DASH, DECLARATION, DOUBLE_QUOTE, GT, LT, LineCounter, OPEN_BRACKET,
  MAX_DOCUMENT_CHARS, MAX_ELEMENT_DEPTH, QUESTION, SINGLE_QUOTE, SLASH, excerpt, isNameChar, isNameStart, isXmlWhitespace,
  type MarkupState as State, type SplitDocument, type SplitterLimits,
} from '../../src/sources/lexers/xml/markup.js';

export class XmlDocumentSplitter {
  private readonly limits: SplitterLimits;
  private state: State = 'text';
  private chunk = '';
  private atInputStart = true;
  private readonly lines = new LineCounter();
  private emitted = 0;
  private output: SplitDocument[] = [];

  // The current document.
  private openElements: string[] = [];
  private documentStarted = false;
  private declarationSeen = false;
  private rootName: string | undefined;
  private rootLine = 0;
  private markupLine = 0;
  /** Chunk slices of the current root element before the current chunk; `retainFrom` is where it starts in this chunk. */
  private retained: string[] = [];
  private retainedChars = 0;
  private retainFrom = -1;

  // The construct being read.
  private namePrefix = '';
  private nameStart = -1;
  private tagName = '';
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

  constructor(limits: Partial<SplitterLimits> = {}) {
    this.limits = { maxDocumentChars: MAX_DOCUMENT_CHARS, maxElementDepth: MAX_ELEMENT_DEPTH, ...limits };
  }

  /** Root name of the first document, known as soon as its start tag name is read (for detection). */
  get firstRootName(): string | undefined {
    return this.firstRoot;
  }

  /** Feeds the next chunk; returns the documents it completed. */
  push(text: string): SplitDocument[] {
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
    while (index < chunk.length) index = this.step(chunk, index);

    if (this.retainFrom !== -1) {
      const piece = chunk.slice(this.retainFrom);
      this.retained.push(piece);
      this.retainedChars += piece.length;
      if (this.retainedChars > this.limits.maxDocumentChars) {
        this.fault(chunk.length, `document is longer than ${this.limits.maxDocumentChars} characters; nvidia-smi documents are well under 1 MiB`);
      }
    }
    if (this.nameStart !== -1) this.namePrefix += chunk.slice(this.nameStart);
    return this.output;
  }

  /** Ends the input; returns the unfinished last document, if there is one, as defective. */
  finish(): SplitDocument[] {
    this.output = [];
    const line = this.lines.lineAt(this.chunk.length);
    const innermost = this.openElements[this.openElements.length - 1];
    if (this.state === 'skip') {
      // The fault was reported when it was found.
    } else if (innermost !== undefined) {
      this.defect(line, `input ends inside <${innermost}> (expected </${innermost}>): the document is cut short`);
    } else if (this.state !== 'text') {
      this.defect(line, `input ends inside ${this.constructName()}: the document is cut short`);
    } else if (this.documentStarted) {
      this.defect(line, 'document has no root element (expected one after the XML declaration)');
    }
    this.resetDocument();
    this.state = 'text';
    return this.output;
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

  private scanText(chunk: string, index: number): number {
    if (this.openElements.length > 0) {
      // Inside the root: character data needs no check, jump to the next markup.
      const lt = chunk.indexOf('<', index);
      if (lt === -1) return chunk.length;
      this.beginMarkup(lt);
      return lt + 1;
    }
    // Outside the root only whitespace may stand between markup.
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

  private beginMarkup(at: number): void {
    this.state = 'markup-open';
    if (this.openElements.length === 0) {
      this.documentStarted = true;
      this.markupLine = this.lines.lineAt(at);
      this.retained = [];
      this.retainedChars = 0;
      this.retainFrom = at;
    }
  }

  /** A prolog construct (comment, PI, DOCTYPE) ended: it is not kept. */
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
      this.state = 'comment';
      this.runLength = 0;
    } else if (this.bang === '[CDATA[') {
      if (!inRoot) return this.fault(index, 'expected the root element but found a CDATA section');
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
      this.defect(this.lines.lineAt(at), `a new document begins inside <${innermost}> (expected </${innermost}>): the document is cut short`);
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
        this.openElement(at, this.slashBeforeGt);
        return at + 1;
      }
      if (code === LT) return this.fault(at, `expected '>' to end the start tag <${this.tagName}> but found '<'`);
      if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) this.quote = code;
      this.slashBeforeGt = code === SLASH;
    }
    return chunk.length;
  }

  private openElement(gtIndex: number, selfClosing: boolean): void {
    this.state = 'text';
    if (this.openElements.length === 0) {
      this.rootName = this.tagName;
      this.rootLine = this.markupLine;
      if (selfClosing) {
        this.completeDocument(gtIndex);
        return;
      }
    }
    if (selfClosing) return;
    if (this.openElements.length >= this.limits.maxElementDepth) {
      this.fault(gtIndex, `elements are nested deeper than ${this.limits.maxElementDepth} levels`);
      return;
    }
    this.openElements.push(this.tagName);
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
    if (innermost !== this.tagName) return this.fault(gtIndex, `expected </${innermost}> but found </${this.tagName}>`);
    this.openElements.pop();
    this.state = 'text';
    if (this.openElements.length === 0) this.completeDocument(gtIndex);
    return gtIndex + 1;
  }

  private completeDocument(gtIndex: number): void {
    const last = this.chunk.slice(this.retainFrom, gtIndex + 1);
    const rootText = this.retained.length === 0 ? last : this.retained.join('') + last;
    this.emitted += 1;
    this.output.push({ wellFormed: true, number: this.emitted, rootName: this.tagName, rootText, rootLine: this.rootLine });
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
