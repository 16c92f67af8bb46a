/**
 * A JSON document of Kubernetes objects read into pods and nodes. Accepted shapes, all as
 * `kubectl ... -o json` prints them or the API server returns them:
 *   - `kind: List` with Pod and Node items (`kubectl get pods,nodes -A -o json`);
 *   - `kind: PodList` / `NodeList` (the API's own lists; their items carry no `kind`);
 *   - a single `kind: Pod` or `kind: Node` object.
 * Items of other kinds are counted and skipped with a warning.
 */
import { InputError } from '../../model/errors.js';
import { asObject, arrayAt, stringAt } from './json-fields.js';
import { readNode } from './nodes.js';
import { readPod } from './pods.js';
import type { KubernetesSourceRead, NodeInfo, PodInfo } from './types.js';

/** Warning messages kept per input; the rest are counted. */
const MAX_WARNINGS = 50;

/** Kind of the items of a typed list, whose items the API server sends without `kind`. */
const LIST_ITEM_KIND: Readonly<Record<string, string>> = { PodList: 'Pod', NodeList: 'Node', List: '' };

/** `line L column C` of a character offset, for JSON syntax errors. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line} column ${offset - before.lastIndexOf('\n')}`;
}

function parseJson(text: string, ref: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8 names the offset for some syntax errors only; its message may quote input lines.
    const reason = String((error as Error).message).replace(/\s+/gu, ' ');
    const position = /at position (\d+)/u.exec(reason)?.[1];
    throw new InputError(`not JSON (expected the output of kubectl get pods,nodes -A -o json): ${reason}`, {
      file: ref,
      location: position === undefined ? undefined : lineAndColumn(text, Number(position)),
      cause: error,
    });
  }
}

/** Reads one JSON document of Kubernetes objects; throws InputError when it is not one. */
export function readKubernetesObjects(text: string, ref: string): KubernetesSourceRead {
  const document = asObject(parseJson(text, ref));
  const kind = stringAt(document, 'kind');
  if (document === undefined || kind === undefined) {
    throw new InputError('not a Kubernetes object: expected kind List, PodList, NodeList, Pod or Node', { file: ref });
  }
  const itemKind = LIST_ITEM_KIND[kind];
  if (itemKind === undefined && kind !== 'Pod' && kind !== 'Node') {
    throw new InputError(`a ${kind}, not a Pod or Node: expected the output of kubectl get pods,nodes -A -o json`, { file: ref });
  }
  const items: { object: unknown; location: string }[] =
    itemKind === undefined
      ? [{ object: document, location: kind }]
      : arrayAt(document, 'items').map((object, index) => ({ object, location: `items[${index}]` }));

  const pods: PodInfo[] = [];
  const nodes: NodeInfo[] = [];
  const warnings: string[] = [];
  let warningCount = 0;
  const skippedKinds = new Map<string, number>();
  for (const { object, location } of items) {
    const warn = (message: string): void => {
      warningCount += 1;
      if (warnings.length < MAX_WARNINGS) warnings.push(`${location}: ${message}`);
    };
    const item = asObject(object);
    const objectKind = stringAt(item, 'kind') ?? itemKind ?? '';
    if (item !== undefined && objectKind === 'Pod') {
      const pod = readPod(item, warn);
      if (pod !== undefined) pods.push(pod);
    } else if (item !== undefined && objectKind === 'Node') {
      const node = readNode(item, warn);
      if (node !== undefined) nodes.push(node);
    } else {
      skippedKinds.set(objectKind || 'no kind', (skippedKinds.get(objectKind || 'no kind') ?? 0) + 1);
    }
  }
  if (warningCount > warnings.length) warnings.push(`… and ${warningCount - warnings.length} more warnings`);
  for (const [skipped, count] of skippedKinds) {
    warnings.push(`${count} object${count === 1 ? '' : 's'} of kind ${skipped} skipped: only Pods and Nodes are read`);
  }
  return { ref, records: items.length, pods, nodes, warnings };
}
