/**
 * The element splitter hands over each element of data.result as its own text and keeps the
 * rest: parsed piece by piece, a document says what JSON.parse says of it whole, wherever the
 * chunks are cut.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonElementSplitter, type JsonPosition, JsonSplitError } from '../../src/support/json-element-splitter.js';

interface Split {
  elements: unknown[];
  starts: number;
  envelope: unknown;
  resultType: string | undefined;
}

/** Splits `text` fed in `chunks` pieces cut at `cuts`, and parses every piece as the reader does. */
function split(text: string, cuts: number[] = []): Split {
  let elements: unknown[] = [];
  let starts = 0;
  const splitter = new JsonElementSplitter(['data', 'result'], {
    onArrayStart: () => {
      starts += 1;
      elements = [];
    },
    onElement: (element, index, _start, offset) => {
      expect(index).toBe(elements.length);
      // Where it stands in the document, by characters before it: a second read can cut it out there.
      expect(text.slice(offset, offset + element.length)).toBe(element);
      elements.push(JSON.parse(element));
    },
  });
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    splitter.write(text.slice(from, cut));
    from = cut;
  }
  splitter.write(text.slice(from));
  const envelope = JSON.parse(splitter.end()) as unknown;
  return { elements, starts, envelope, resultType: splitter.stringAt('data.resultType') };
}

/** What JSON.parse makes of the whole document, in the same terms. */
function whole(text: string): { elements: unknown[]; envelope: unknown } {
  const document = JSON.parse(text) as { data?: { result?: unknown } };
  const result = document.data?.result;
  if (!Array.isArray(result)) return { elements: [], envelope: document };
  return { elements: result, envelope: { ...document, data: { ...document.data, result: result.map(() => 0) } } };
}

const ANSWER = '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[[1,"5"],[2,"7"]]},{"metric":{"x":"a]}\\"b"},"values":[]}]},"warnings":["w"]}';

describe('JsonElementSplitter', () => {
  it('hands over each element of data.result and keeps the envelope with a 0 in its place', () => {
    const { elements, starts, envelope, resultType } = split(ANSWER);
    expect(elements).toEqual([
      { metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', gpu: '0' }, values: [[1, '5'], [2, '7']] },
      // Brackets and an escaped quote inside a string do not end the element.
      { metric: { x: 'a]}"b' }, values: [] },
    ]);
    expect(starts).toBe(1);
    expect(envelope).toEqual({ status: 'success', data: { resultType: 'matrix', result: [0, 0] }, warnings: ['w'] });
    expect(resultType).toBe('matrix');
  });

  it('gives the same wherever the chunks are cut', () => {
    const once = split(ANSWER);
    for (let cut = 0; cut <= ANSWER.length; cut += 1) expect(split(ANSWER, [cut])).toEqual(once);
  });

  it('reads scalar elements, keys with escapes, and a resultType after the result', () => {
    const text = '{"d\\u0061ta" : { "result" : [ 1 , "two" ,null,true, [3] ] , "resultType" : "vector" } , "status":"success"}';
    const { elements, envelope, resultType } = split(text);
    expect(elements).toEqual([1, 'two', null, true, [3]]);
    expect(envelope).toEqual({ data: { result: [0, 0, 0, 0, 0], resultType: 'vector' }, status: 'success' });
    expect(resultType).toBe('vector');
  });

  it('leaves arrays elsewhere alone: only data.result on the path from the top', () => {
    const text = '{"result":[1],"data":{"x":{"result":[2]},"result":[3]},"other":{"data":{"result":[4]}}}';
    expect(split(text).elements).toEqual([3]);
  });

  it('starts again at a repeated data.result: JSON.parse keeps the last value of a key', () => {
    const text = '{"data":{"result":[1,2]},"data":{"result":[3]}}';
    const { elements, starts } = split(text);
    expect(starts).toBe(2);
    expect(elements).toEqual(whole(text).elements);
  });

  it('fails where the structure is broken, as JSON.parse does', () => {
    for (const broken of ['{"data":{"result":[{"a":1]]}}', '{"data":{"result":[1,2', '{"data":{"result":["x]}}', '{"data":{"result":[{"a":1}}}}']) {
      expect(() => JSON.parse(broken)).toThrow();
      expect(() => split(broken)).toThrow();
    }
  });

  it('agrees with JSON.parse on random answers, in any key order and spacing, cut anywhere', () => {
    const answer = fc.record({
      result: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }),
      resultType: fc.constantFrom('vector', 'matrix', 'we\\"ird'),
      extra: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      resultFirst: fc.boolean(),
      indent: fc.constantFrom(0, 1, 2, '\t'),
    });
    fc.assert(
      fc.property(answer, fc.array(fc.nat(), { maxLength: 5 }), ({ result, resultType, extra, resultFirst, indent }, cutSeeds) => {
        const data = resultFirst ? { result, resultType } : { resultType, result };
        const document = { ...Object.fromEntries(Object.entries(extra).filter(([key]) => key !== 'data')), status: 'success', data };
        const text = JSON.stringify(document, null, indent);
        const cuts = cutSeeds.map((seed) => seed % (text.length + 1));
        const pieces = split(text, cuts);
        const expected = whole(text);
        expect(pieces.elements).toEqual(expected.elements);
        expect(pieces.envelope).toEqual(expected.envelope);
        expect(pieces.resultType).toBe(resultType);
      }),
      { numRuns: 300 },
    );
  });

  it('never accepts in pieces what JSON.parse refuses whole', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.nat(), fc.constantFrom('', '{', '}', '[', ']', '"', ',', ':', '\\', 'x'), (element, seed, inserted) => {
        const valid = JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [element, element] } });
        const at = seed % (valid.length + 1);
        const text = valid.slice(0, at) + inserted + valid.slice(at);
        let wholeOk = true;
        try {
          JSON.parse(text);
        } catch {
          wholeOk = false;
        }
        let piecesOk = true;
        try {
          split(text);
        } catch {
          piecesOk = false;
        }
        if (piecesOk) expect(wholeOk).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('ends a string at a quote after an even run of backslashes only, wherever the chunks cut the run', () => {
    // Values: a\ , \" , \\\" , \\ : runs of 1 to 4 backslashes before quotes that end or do not end strings.
    const text = '{"data":{"result":["a\\\\","\\"","\\\\\\"","\\\\\\\\",{"k\\\\":"]\\""}]}}';
    const once = split(text);
    expect(once.elements).toEqual(whole(text).elements);
    for (let first = 0; first <= text.length; first += 1) {
      expect(split(text, [first]).elements, `cut at ${first}`).toEqual(once.elements);
      expect(split(text, [first, first + 1]).elements, `cuts at ${first}, ${first + 1}`).toEqual(once.elements);
    }
  });
});

/** The offset in `text` of a 1-based line and column. */
function offsetOf(text: string, { line, column }: JsonPosition): number {
  let offset = 0;
  for (let at = 1; at < line; at += 1) offset = text.indexOf('\n', offset) + 1;
  return offset + column - 1;
}

describe('JsonElementSplitter positions', () => {
  it('gives each element where it starts, and each character of the envelope where it stands in the document', () => {
    const document = fc.record({
      result: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
      extra: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
      indent: fc.constantFrom(0, 1, 4, '\t'),
    });
    fc.assert(
      fc.property(document, fc.array(fc.nat(), { maxLength: 4 }), ({ result, extra, indent }, cutSeeds) => {
        const text = JSON.stringify({ ...extra, data: { result } }, null, indent).replaceAll('\n', cutSeeds.length % 2 === 0 ? '\n' : '\r\n');
        const cuts = cutSeeds.map((seed) => seed % (text.length + 1)).sort((a, b) => a - b);
        const splitter = new JsonElementSplitter(['data', 'result'], {
          onArrayStart: () => undefined,
          onElement: (element, _index, start) => {
            const at = offsetOf(text, start);
            expect(text.slice(at, at + element.length)).toBe(element);
          },
        });
        let from = 0;
        for (const cut of [...cuts, text.length]) {
          splitter.write(text.slice(from, cut));
          from = cut;
        }
        const envelope = splitter.end();
        for (let offset = 0; offset < envelope.length; offset += 1) {
          const placeholder = envelope[offset] === '0' && /[[,]\s*$/u.test(envelope.slice(0, offset));
          if (placeholder) continue; // an element's place: it stands for the element's text
          expect(text[offsetOf(text, splitter.positionInEnvelope(envelope, offset))], `envelope offset ${offset}`).toBe(envelope[offset]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('names where a bracket closes what is not open', () => {
    const splitter = new JsonElementSplitter(['data', 'result'], { onArrayStart: () => undefined, onElement: () => undefined });
    const error = (() => {
      try {
        splitter.write('{"data":\n  {"result": [1]\n  ]}');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(JsonSplitError);
    expect((error as JsonSplitError).position).toEqual({ line: 3, column: 3 });
  });
});
