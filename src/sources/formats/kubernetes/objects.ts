/**
 * A JSON document of Kubernetes objects read into pods and nodes. Accepted shapes, all as
 * `kubectl ... -o json` prints them or the API server returns them:
 *   - `kind: List` with Pod and Node items (`kubectl get pods,nodes -A -o json`);
 *   - `kind: PodList` / `NodeList` (the API's own lists; their items carry no `kind`);
 *   - a single `kind: Pod` or `kind: Node` object.
 * Items of other kinds are counted and skipped with a warning.
 *
 * Read as a stream, one item at a time (KubernetesObjectReader): a large cluster's list is
 * hundreds of MB of JSON, and parsing it whole held the text and every object of it at once
 * (a list over 512 MB cannot even be held as one string). Each item of `items` is parsed alone (../support/json-element-splitter.ts), read
 * into the few facts analysis needs and let go; the envelope (kind, metadata) is parsed at the end.
 */
import { InputError } from '../../../support/index.js';
import { JsonElementSplitter, type JsonPosition, JsonSplitError, pieceSyntaxError, positionAfter, positionText } from '../../../support/index.js';
import { asObject, type JsonObject, stringAt } from './json-fields.js';
import { readNode } from './nodes.js';
import { readPod } from './pods.js';
import type { KubernetesSourceRead, NodeInfo, PodInfo } from '../../../model/index.js';

/** Warning messages kept per input; the rest are counted. */
const MAX_WARNINGS = 50;

/** Kind of the items of a typed list, whose items the API server sends without `kind`. */
const LIST_ITEM_KIND: Readonly<Record<string, string>> = { PodList: 'Pod', NodeList: 'Node', List: '' };

const EXPECTED = 'expected the output of kubectl get pods,nodes -A -o json';
const NOT_AN_OBJECT = 'not a Kubernetes object: expected kind List, PodList, NodeList, Pod or Node';

function notJson(error: unknown, ref: string, location: string | undefined): InputError {
  return new InputError(`not JSON (${EXPECTED}): ${pieceSyntaxError(error)}`, { file: ref, location, cause: error });
}

function lineAndColumn(position: JsonPosition | undefined): string | undefined {
  return position === undefined ? undefined : positionText(position);
}

/** The offset a JSON.parse error names, if it names one. */
function errorOffset(error: unknown): number | undefined {
  const position = /at position (\d+)/u.exec(String((error as Error).message))?.[1];
  return position === undefined ? undefined : Number(position);
}

/** The pods, nodes and warnings of the items read so far. */
class ItemReader {
  readonly pods: PodInfo[] = [];
  readonly nodes: NodeInfo[] = [];
  private readonly warnings: string[] = [];
  private warningCount = 0;
  private readonly skippedKinds = new Map<string, number>();
  records = 0;

  /** One object; `defaultKind`: the kind of a list's items that carry none. */
  read(object: unknown, location: string, defaultKind: string): void {
    this.records += 1;
    const warn = (message: string): void => {
      this.warningCount += 1;
      if (this.warnings.length < MAX_WARNINGS) this.warnings.push(`${location}: ${message}`);
    };
    const item = asObject(object);
    const objectKind = stringAt(item, 'kind') ?? defaultKind;
    if (item !== undefined && objectKind === 'Pod') {
      const pod = readPod(item, warn);
      if (pod !== undefined) this.pods.push(pod);
    } else if (item !== undefined && objectKind === 'Node') {
      const node = readNode(item, warn);
      if (node !== undefined) this.nodes.push(node);
    } else {
      const skipped = objectKind || 'no kind';
      this.skippedKinds.set(skipped, (this.skippedKinds.get(skipped) ?? 0) + 1);
    }
  }

  result(ref: string): KubernetesSourceRead {
    const warnings = [...this.warnings];
    if (this.warningCount > warnings.length) warnings.push(`… and ${this.warningCount - warnings.length} more warnings`);
    for (const [skipped, count] of this.skippedKinds) {
      warnings.push(`${count} object${count === 1 ? '' : 's'} of kind ${skipped} skipped: only Pods and Nodes are read`);
    }
    return { ref, records: this.records, pods: this.pods, nodes: this.nodes, warnings };
  }
}

/**
 * Reads one JSON document of Kubernetes objects fed in chunks: `write` each, then `end`.
 * Throws InputError when it is not one (a syntax error with its line and column).
 *
 * The items of `items` are read as they end. An item without its own `kind` (a PodList's) takes
 * the list's, which the API server writes before `items`; where the document has not said it by
 * then (keys reordered), that item and the ones after it are kept, parsed, until the end.
 */
export class KubernetesObjectReader {
  private readonly splitter: JsonElementSplitter;
  private items = new ItemReader();
  /** Items waiting for the list's kind, parsed. */
  private waiting: [object: unknown, location: string][] = [];
  private started = false;

  constructor(private readonly ref: string) {
    this.splitter = new JsonElementSplitter(['items'], {
      onArrayStart: () => {
        // A repeated `items` key: JSON keeps the last one.
        this.items = new ItemReader();
        this.waiting = [];
      },
      onElement: (text, index, start) => this.element(text, index, start),
    });
  }

  write(chunk: string): void {
    if (!this.started) this.checkStart(chunk);
    try {
      this.splitter.write(chunk);
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw notJson(error, this.ref, error instanceof JsonSplitError ? lineAndColumn(error.position) : undefined);
    }
  }

  end(): KubernetesSourceRead {
    const { ref } = this;
    let envelope = '';
    let document: JsonObject | undefined;
    try {
      envelope = this.splitter.end();
      document = asObject(JSON.parse(envelope));
    } catch (error) {
      const offset = errorOffset(error);
      throw notJson(error, ref, offset === undefined ? undefined : lineAndColumn(this.splitter.positionInEnvelope(envelope, offset)));
    }
    const kind = stringAt(document, 'kind');
    if (document === undefined || kind === undefined) {
      throw new InputError(NOT_AN_OBJECT, { file: ref });
    }
    const itemKind = LIST_ITEM_KIND[kind];
    if (itemKind === undefined && kind !== 'Pod' && kind !== 'Node') {
      throw new InputError(`a ${kind}, not a Pod or Node: ${EXPECTED}`, { file: ref });
    }
    if (itemKind === undefined) {
      // One object: the document itself (its items, if it had any, are not its content).
      const one = new ItemReader();
      one.read(document, kind, '');
      return one.result(ref);
    }
    for (const [object, location] of this.waiting) this.items.read(object, location, itemKind);
    this.waiting = [];
    return this.items.result(ref);
  }

  /** A document that does not open with `{` is no Kubernetes object: said at once, not after reading it all. */
  private checkStart(chunk: string): void {
    const first = chunk.search(/\S/u);
    if (first === -1) return;
    this.started = true;
    const code = chunk.charCodeAt(first);
    if (code === 0x7b) return;
    if (code === 0x5b) throw new InputError(NOT_AN_OBJECT, { file: this.ref });
    const position = positionAfter({ line: 1, column: 1 }, chunk, first);
    throw notJson(new SyntaxError(`Unexpected token '${chunk[first]}', expected '{'`), this.ref, lineAndColumn(position));
  }

  private element(text: string, index: number, start: JsonPosition): void {
    let object: unknown;
    try {
      object = JSON.parse(text);
    } catch (error) {
      const offset = errorOffset(error);
      // V8 names no offset for some errors: then the item, and where it starts.
      throw notJson(error, this.ref, offset === undefined ? `items[${index}] from ${lineAndColumn(start)}` : lineAndColumn(positionAfter(start, text, offset)));
    }
    const location = `items[${index}]`;
    const listKind = this.splitter.stringAt('kind');
    const ownKind = stringAt(asObject(object), 'kind');
    if (this.waiting.length === 0 && (ownKind !== undefined || listKind !== undefined)) {
      this.items.read(object, location, LIST_ITEM_KIND[listKind ?? ''] ?? '');
    } else {
      this.waiting.push([object, location]);
    }
  }
}

/** Reads one JSON document of Kubernetes objects held whole; throws InputError when it is not one. */
export function readKubernetesObjects(text: string, ref: string): KubernetesSourceRead {
  const reader = new KubernetesObjectReader(ref);
  reader.write(text);
  return reader.end();
}
