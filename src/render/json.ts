/**
 * The JSON report: the contract itself (schema/report.schema.json), for machines and
 * for `gpu-audit report` / `check --baseline` to read back. Keys come out in contract
 * order whatever order the producer built them in, so two reports diff line by line.
 *
 * The CLI writes the same text in pieces (renderJsonPieces): a large fleet's report is tens of
 * megabytes of JSON, and building it as one string (then one Buffer to write it) held it
 * twice, beside a reordered copy of the whole report. In pieces, the elements of the
 * top-level arrays (GPUs, findings, recommendations) are reordered and stringified a batch at
 * a time, and each batch goes out as it is made.
 */
import type { Report } from '../model/index.js';
import { REPORT_ORDER, inContractOrder, type ContractNode } from '../model/index.js';
import type { Renderer } from './types.js';

/** Elements of a top-level array stringified in one call: few calls, and no more than a few MB held at a time. */
const BATCH_ELEMENTS = 256;

/** How JSON.stringify(…, null, 2) opens and closes `[[…]]` and `[…]`: sliced off to leave the inside at its depth. */
const ELEMENTS_OPEN = '[\n  [\n    '.length;
const ELEMENTS_CLOSE = '\n  ]\n]'.length;
const VALUE_OPEN = '[\n  '.length;
const VALUE_CLOSE = '\n]'.length;

function ordered(value: unknown, order: ContractNode | undefined): unknown {
  return order === undefined ? value : inContractOrder(value, order);
}

/**
 * The report's JSON in pieces whose concatenation is `JSON.stringify(inContractOrder(report),
 * null, 2)` and a newline. Top-level keys in contract order, then unknown keys in the
 * producer's order. Indentation is JSON.stringify's own: a value is stringified inside
 * `[…]` (an array's elements inside `[[…]]`) and the brackets sliced off, which leaves it
 * indented to the depth it has in the report; what JSON.stringify leaves out (undefined,
 * functions) is left out the same way, and an element it cannot write is `null`.
 */
export function* renderJsonPieces(report: Report): Generator<string, void, undefined> {
  const source = report as unknown as Record<string, unknown>;
  const known = new Set(REPORT_ORDER.keys);
  const keys = [...REPORT_ORDER.keys.filter((key) => Object.hasOwn(source, key)), ...Object.keys(source).filter((key) => !known.has(key))];
  let pending = '';
  let written = 0;
  for (const key of keys) {
    const value = source[key];
    const child = REPORT_ORDER.nested[key];
    const head = `${written === 0 ? '{\n' : ',\n'}  ${JSON.stringify(key)}: `;
    if (Array.isArray(value) && value.length > 0) {
      for (let start = 0; start < value.length; start += BATCH_ELEMENTS) {
        const batch = value.slice(start, start + BATCH_ELEMENTS).map((element: unknown) => ordered(element, child));
        const text = JSON.stringify([batch], null, 2);
        yield `${pending}${start === 0 ? `${head}[\n    ` : ',\n    '}${text.slice(ELEMENTS_OPEN, text.length - ELEMENTS_CLOSE)}`;
        pending = '';
      }
      pending = '\n  ]';
    } else {
      // JSON.stringify writes `null` for an array element it cannot write: the key is left out instead.
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
      const text = JSON.stringify([ordered(value, child)], null, 2);
      pending += `${head}${text.slice(VALUE_OPEN, text.length - VALUE_CLOSE)}`;
    }
    written += 1;
  }
  yield `${pending}${written === 0 ? '{}' : '\n}'}\n`;
}

/** The whole text at once, for callers that want a string (tests, `report`); the CLI writes renderJsonPieces as it goes. */
export const renderJson: Renderer = (report: Report): string => `${JSON.stringify(inContractOrder(report, REPORT_ORDER), null, 2)}\n`;
