/**
 * Builds, while the scanner reads a document, the part of fast-xml-parser's tree that a
 * mapping reads, and nothing else: a pruned tree of the same shape (text for a leaf, an
 * object with `@_` attributes and children otherwise, a list for a repeated name), so the
 * accessors of tree.ts and the mapping run on it unchanged.
 *
 * The plan names the elements read. Every occurrence of a planned element under a kept
 * parent is kept, in document order, so "the first <fb_memory_usage> of a <gpu>" is the
 * same element in both trees. Where the pruned tree could differ from the full one at a
 * planned path, the capture answers UNREADABLE and the document goes to the full parser:
 * a planned leaf with child elements (fast-xml-parser joins the text around them), and
 * attributes other than one plain `name="value"` on a kept element.
 *
 * Not kept: the text of an element that has child elements (no mapping reads it).
 */
import { detached } from '../../../support/index.js';
import { ATTRIBUTE_PREFIX, TEXT_KEY, type XmlElement, type XmlNode } from './tree.js';

/** The elements a mapping reads, by name from the document down; `{}` is an element whose text is read. */
export interface ReadPlan {
  readonly [child: string]: ReadPlan;
}

interface PlanNode {
  readonly children: ReadonlyMap<string, PlanNode>;
  /** No planned children: its text is read, so child elements make it unreadable here. */
  readonly leaf: boolean;
}

function compile(plan: ReadPlan): PlanNode {
  const children = new Map(Object.entries(plan).map(([name, child]) => {
    // Planned names become keys of plain objects: `__proto__` would set a prototype instead.
    if (name in Object.prototype || name.startsWith(ATTRIBUTE_PREFIX) || name === TEXT_KEY) throw new Error(`cannot plan an element named ${name}`);
    return [name, compile(child)];
  }));
  return { children, leaf: children.size === 0 };
}

/** What the scanner does with an element opened inside a kept one. */
export const SKIP = 0;
/** Keep it: report its first run of text and its end. */
export const KEEP = 1;
/** The pruned tree cannot match fast-xml-parser's here: leave the document to it. */
export const UNREADABLE = 2;
export type Keep = typeof SKIP | typeof KEEP | typeof UNREADABLE;

/** A mutable, kept element; the content is built with the same keys fast-xml-parser uses. */
type Content = Record<string, XmlNode>;

interface Frame {
  name: string;
  plan: PlanNode;
  attributes: Content | undefined;
  /** The text before the first child element (all of it, for a leaf). */
  text: string;
  hasChildElements: boolean;
  content: Content | undefined;
}

/** One attribute in the plain form nvidia-smi prints (`<gpu id="00000000:01:00.0">`). */
const ONE_ATTRIBUTE = /^\s+([A-Za-z_:][A-Za-z0-9_.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')\s*$/;

/** fast-xml-parser's value for a text: line ends normalised to \n (it does so before parsing), trimmed; not a slice of the chunk. */
function parserText(raw: string): string {
  const text = raw.trim();
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : detached(text);
}

/** Attributes as fast-xml-parser keys them; undefined for none, null for a form not read here. */
function readAttributes(text: string): Content | undefined | null {
  if (text.trim() === '') return undefined;
  const match = ONE_ATTRIBUTE.exec(text);
  if (match === null) return null;
  return { [ATTRIBUTE_PREFIX + match[1]!]: parserText(match[2] ?? match[3] ?? '') };
}

function add(content: Content, name: string, value: XmlNode): void {
  if (!Object.hasOwn(content, name)) {
    content[name] = value;
    return;
  }
  const existing = content[name]!;
  if (Array.isArray(existing)) existing.push(value);
  else content[name] = [existing, value];
}

/** The element as fast-xml-parser gives it (its text left out where it has child elements). */
function valueOf(frame: Frame): XmlNode {
  if (!frame.hasChildElements && frame.attributes === undefined) return frame.text;
  const element: Content = frame.content ?? {};
  if (frame.attributes !== undefined) Object.assign(element, frame.attributes);
  if (!frame.hasChildElements && frame.text !== '') element[TEXT_KEY] = frame.text;
  return element;
}

export class ContentCapture {
  private readonly plan: PlanNode;
  /** frames[0] stands for the document; frames[depth] is the innermost kept element. Reused. */
  private readonly frames: Frame[] = [];
  private depth = 0;

  constructor(plan: ReadPlan) {
    this.plan = compile(plan);
    this.reset();
  }

  /** Forgets the document read so far. */
  reset(): void {
    this.depth = 0;
    this.enter(0, '', this.plan, undefined);
  }

  /** An element opens directly inside the innermost kept element (or is the root). */
  open(name: string, attributeText: string, selfClosing: boolean): Keep {
    const parent = this.frames[this.depth]!;
    parent.hasChildElements = true;
    if (parent.plan.leaf) return UNREADABLE;
    const plan = parent.plan.children.get(name);
    if (plan === undefined) return SKIP;
    const attributes = readAttributes(attributeText);
    if (attributes === null) return UNREADABLE;
    const frame = this.enter(this.depth + 1, name, plan, attributes);
    if (selfClosing) {
      add(parent.content ??= {}, name, valueOf(frame));
      return SKIP;
    }
    this.depth += 1;
    return KEEP;
  }

  /** The innermost kept element's text up to its first child element or its end. */
  text(raw: string): void {
    this.frames[this.depth]!.text = parserText(raw);
  }

  /** The innermost kept element ends. */
  close(): void {
    const frame = this.frames[this.depth]!;
    this.depth -= 1;
    const parent = this.frames[this.depth]!;
    add(parent.content ??= {}, frame.name, valueOf(frame));
  }

  /** What fast-xml-parser would give for the root element, at every planned path; undefined if it was not planned. */
  root(rootName: string): XmlNode | undefined {
    const document = this.frames[0]!.content;
    return document !== undefined && Object.hasOwn(document, rootName) ? (document as XmlElement)[rootName] : undefined;
  }

  private enter(depth: number, name: string, plan: PlanNode, attributes: Content | undefined): Frame {
    const frame = this.frames[depth];
    if (frame === undefined) {
      const created: Frame = { name, plan, attributes, text: '', hasChildElements: false, content: undefined };
      this.frames[depth] = created;
      return created;
    }
    frame.name = name;
    frame.plan = plan;
    frame.attributes = attributes;
    frame.text = '';
    frame.hasChildElements = false;
    frame.content = undefined;
    return frame;
  }
}
