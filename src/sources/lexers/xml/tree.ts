/**
 * fast-xml-parser set up for nvidia-smi documents, and small accessors over its tree.
 *
 * The parser only ever sees a root element (the splitter drops the prolog), runs with
 * entity processing off, and keeps every value as the string printed: units, `N/A`
 * and leading zeros (`pci_domain` 0000) are interpreted by the mapping, not guessed here.
 */
import { XMLParser } from 'fast-xml-parser';
import { decodeXmlText } from './values.js';

/** A parsed element: text for a leaf, an object for an element with children or attributes, a list when repeated. */
export type XmlNode = string | XmlElement | XmlNode[];
export interface XmlElement {
  readonly [name: string]: XmlNode | undefined;
}

/** How fast-xml-parser keys an element's attributes and its text (the content capture builds the same shape). */
export const ATTRIBUTE_PREFIX = '@_';
export const TEXT_KEY = '#text';

/**
 * Blocks gpu-audit does not read. fast-xml-parser keeps a stop node's content as raw
 * text instead of building a tree for it; `supported_clocks` alone is up to 85% of a
 * consumer GPU's document, and skipping these makes a long -l log parse several times faster.
 * Remove a name here before reading anything inside it.
 */
const UNREAD_BLOCKS = [
  'supported_clocks', 'clocks_event_reasons', 'clocks_event_reasons_counters', 'clocks_throttle_reasons',
  'ecc_errors', 'retired_pages', 'remapped_rows', 'temperature', 'max_clocks', 'applications_clocks',
  'default_applications_clocks', 'inforom_version', 'encoder_stats', 'fbc_stats', 'bar1_memory_usage',
  'cc_protected_memory_usage', 'module_power_readings', 'gpu_memory_power_readings',
];

const parser = new XMLParser({
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE_PREFIX,
  textNodeName: TEXT_KEY,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  stopNodes: UNREAD_BLOCKS.map((name) => `*.${name}`),
  // Element paths are not needed (the accessors below read one or many alike) and cost time per tag.
  jPath: false,
});

/** Parses one root element's text; returns the root's content. Throws on what fast-xml-parser rejects. */
export function parseRootElement(rootText: string, rootName: string): XmlNode | undefined {
  const tree = parser.parse(rootText) as Record<string, XmlNode | undefined>;
  return tree[rootName];
}

function isElement(node: XmlNode | undefined): node is XmlElement {
  return typeof node === 'object' && !Array.isArray(node);
}

/** The first child element of that name (a repeated element where one was expected reads as its first). */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  if (!isElement(node) || !Object.hasOwn(node, name)) return undefined;
  const value = node[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Every child element of that name; none for a text-only element such as `<mig_devices>None</mig_devices>`. */
export function children(node: XmlNode | undefined, name: string): XmlNode[] {
  if (!isElement(node) || !Object.hasOwn(node, name)) return [];
  const value = node[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Follows a path of child names. */
export function descend(node: XmlNode | undefined, path: readonly string[]): XmlNode | undefined {
  let current = node;
  for (const name of path) current = child(current, name);
  return current;
}

/** The text of a leaf element, entities resolved; undefined for an absent element or one with child elements. */
export function textOf(node: XmlNode | undefined): string | undefined {
  if (typeof node === 'string') return decodeXmlText(node);
  if (isElement(node)) {
    const text = node[TEXT_KEY];
    if (typeof text === 'string') return decodeXmlText(text);
    // An element with only attributes, e.g. <gpu id="..."/>, has empty text.
    return Object.keys(node).every((key) => key.startsWith(ATTRIBUTE_PREFIX)) ? '' : undefined;
  }
  return undefined;
}

export function attributeOf(node: XmlNode | undefined, name: string): string | undefined {
  if (!isElement(node)) return undefined;
  const value = node[ATTRIBUTE_PREFIX + name];
  return typeof value === 'string' ? decodeXmlText(value) : undefined;
}
