/**
 * A query answer read as it arrives: each element of `data.result` is parsed alone the moment it
 * ends and turned at once into what the caller keeps (a series' labels and numbers), so neither
 * the answer's text nor its whole parse tree is ever held. The envelope (status, warnings,
 * isPartial, resultType), with each element replaced by `0`, is parsed at the end.
 */
import { JsonElementSplitter, pieceSyntaxError, positionText } from '../../../support/index.js';
import { limitHint } from '../../input-limits.js';

/** An envelope past this is not a query answer of series (the saved-answer reader's bound). */
const MAX_ENVELOPE_CHARS = 16 * 1024 * 1024;

/** The answer is not JSON, or not a query answer, or (`isCap`) past a cap of ours: `why` says how, for the client's message. */
export class AnswerShapeError extends Error {
  constructor(readonly why: string, readonly isCap = false) {
    super(why);
    this.name = 'AnswerShapeError';
  }
}

export class AnswerStream<Item> {
  /** The converted elements of the last `data.result` (JSON.parse keeps the last of a repeated key); undefined conversions left out. */
  items: Item[] = [];
  private readonly splitter: JsonElementSplitter;

  constructor(convert: (entry: unknown) => Item | undefined, maxSeries = Infinity) {
    this.splitter = new JsonElementSplitter(['data', 'result'], {
      onArrayStart: () => {
        this.items = [];
      },
      onElement: (text, index, start) => {
        if (index >= maxSeries) {
          throw new AnswerShapeError(`the answer holds more than ${maxSeries} series: narrow the GPUs (--selector) or read more with ${limitHint('seriesPerAnswer')}`, true);
        }
        let entry: unknown;
        try {
          entry = JSON.parse(text);
        } catch (error) {
          throw new AnswerShapeError(`not valid JSON at ${positionText(start)} (data.result[${index}]): ${pieceSyntaxError(error)}`);
        }
        const item = convert(entry);
        if (item !== undefined) this.items.push(item);
      },
    });
  }

  write(text: string): void {
    try {
      this.splitter.write(text);
    } catch (error) {
      if (error instanceof AnswerShapeError || !(error instanceof SyntaxError)) throw error;
      throw new AnswerShapeError(`not valid JSON: ${pieceSyntaxError(error)}`);
    }
    if (this.splitter.envelopeChars > MAX_ENVELOPE_CHARS) throw new AnswerShapeError(`more than ${MAX_ENVELOPE_CHARS / 1048576} MiB of text outside data.result`);
  }

  /** The envelope, parsed, with `data.result` (where it is a list) holding the converted items; a SyntaxError when it is not JSON. */
  end(): unknown {
    const document: unknown = JSON.parse(this.splitter.end());
    const data = typeof document === 'object' && document !== null ? (document as { data?: unknown }).data : undefined;
    if (typeof data === 'object' && data !== null && Array.isArray((data as { result?: unknown }).result)) (data as { result: unknown }).result = this.items;
    return document;
  }
}
