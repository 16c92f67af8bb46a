import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { XmlDocumentScanner, type ScannedDocument } from '../../../src/sources/lexers/xml/document-scanner.js';
import type { SplitterLimits } from '../../../src/sources/lexers/xml/markup.js';
import { XmlDocumentSplitter } from '../../helpers/xml-document-splitter.js';

/**
 * One specification, two implementations: XmlDocumentSplitter (the reference, every
 * character through a state machine) and XmlDocumentScanner (the production scanner,
 * whose fast path for usual tags must not change a document, number, line or message).
 */
const IMPLEMENTATIONS: [string, (limits?: Partial<SplitterLimits>) => XmlDocumentSplitter | XmlDocumentScanner][] = [
  ['XmlDocumentSplitter', (limits) => new XmlDocumentSplitter(limits)],
  ['XmlDocumentScanner', (limits) => new XmlDocumentScanner(undefined, limits)],
];

/** Runs a splitter over the text cut into the given pieces. */
function splitWith(splitter: XmlDocumentSplitter | XmlDocumentScanner, pieces: string[]): ScannedDocument[] {
  const documents = pieces.flatMap((piece) => splitter.push(piece));
  return [...documents, ...splitter.finish()];
}

/** Cuts text at the given offsets. */
function cutAt(text: string, offsets: number[]): string[] {
  const bounds = [0, ...[...new Set(offsets)].sort((a, b) => a - b), text.length];
  return bounds.slice(1).map((end, i) => text.slice(bounds[i], end));
}

const LOG = [
  '\uFEFF<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n<nvidia_smi_log>\n\t<gpu id="00000000:01:00.0">\n\t\t<used>1 MiB</used>\n\t</gpu>\n</nvidia_smi_log>\n',
  '<?xml version="1.0" ?>\n<!-- second -->\n<nvidia_smi_log>\n\t<processes />\n\t<note><![CDATA[ </nvidia_smi_log> ]]></note>\n</nvidia_smi_log>\n',
  '<?xml version="1.0" ?>\n<nvidia_smi_log a=\'x>y\' b="/>"><x/></nvidia_smi_log>\n',
].join('');

describe.each(IMPLEMENTATIONS)('%s', (_implementation, create) => {
  const split = (pieces: string[], splitter = create()): ScannedDocument[] => splitWith(splitter, pieces);

  it('cuts a log into its documents and keeps only each root element', () => {
    expect(split([LOG])).toEqual([
      { wellFormed: true, number: 1, rootName: 'nvidia_smi_log', rootLine: 3, rootText: '<nvidia_smi_log>\n\t<gpu id="00000000:01:00.0">\n\t\t<used>1 MiB</used>\n\t</gpu>\n</nvidia_smi_log>' },
      { wellFormed: true, number: 2, rootName: 'nvidia_smi_log', rootLine: 10, rootText: '<nvidia_smi_log>\n\t<processes />\n\t<note><![CDATA[ </nvidia_smi_log> ]]></note>\n</nvidia_smi_log>' },
      { wellFormed: true, number: 3, rootName: 'nvidia_smi_log', rootLine: 15, rootText: '<nvidia_smi_log a=\'x>y\' b="/>"><x/></nvidia_smi_log>' },
    ]);
  });

  it('gives the same documents wherever the chunk boundaries fall', () => {
    const whole = split([LOG]);
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: LOG.length - 1 }), { maxLength: 40 }), (offsets) => {
      expect(split(cutAt(LOG, offsets))).toEqual(whole);
    }));
    expect(split([...LOG])).toEqual(whole);
  });

  it('splits documents that have no XML declaration at the end of each root', () => {
    expect(split(['<a/>\n<b>x</b>']).map((document) => document.wellFormed && document.rootText)).toEqual(['<a/>', '<b>x</b>']);
  });

  it('reads past a DOCTYPE internal subset whose literals and comments hold > and ]', () => {
    const text = '<!DOCTYPE r [\n<!ENTITY a "x]>y">\n<!-- ] > " -->\n<!ENTITY b \'q\'>\n]>\n<r>&a;</r>';
    expect(split([text])).toEqual([{ wellFormed: true, number: 1, rootName: 'r', rootLine: 6, rootText: '<r>&a;</r>' }]);
  });

  it('reads comments ending in --->, and processing instructions inside the root', () => {
    expect(split(['<r><!-- a -- b ---><?pi x > y?></r>'])).toMatchObject([{ wellFormed: true, rootText: '<r><!-- a -- b ---><?pi x > y?></r>' }]);
  });

  it('reports a mismatched end tag with its line, and reads on from the next declaration', () => {
    const text = '<?xml version="1.0"?>\n<r>\n<a></b>\n</r>\n<?xml version="1.0"?>\n<r/>\n';
    expect(split([text])).toEqual([
      { wellFormed: false, number: 1, line: 3, problem: 'expected </a> but found </b>' },
      { wellFormed: true, number: 2, rootName: 'r', rootLine: 6, rootText: '<r/>' },
    ]);
  });

  it('finds the next declaration even when it straddles chunks', () => {
    const pieces = ['<r>\n</x>junk <?x', 'ml version="1.0"?><s/>'];
    expect(split(pieces)).toEqual([
      { wellFormed: false, number: 1, line: 2, problem: 'expected </r> but found </x>' },
      { wellFormed: true, number: 2, rootName: 's', rootLine: 2, rootText: '<s/>' },
    ]);
  });

  it('ends a document cut off by a new declaration, and reads the new one', () => {
    const text = '<?xml version="1.0"?>\n<r>\n<a>12<?xml version="1.0"?>\n<r>ok</r>';
    expect(split([text])).toEqual([
      { wellFormed: false, number: 1, line: 3, problem: 'a new document begins inside <a> (expected </a>): the document is cut short' },
      { wellFormed: true, number: 2, rootName: 'r', rootLine: 4, rootText: '<r>ok</r>' },
    ]);
  });

  it('reports a document with a declaration but no root before the next one', () => {
    expect(split(['<?xml version="1.0"?>\n<?xml version="1.0"?><r/>'])).toEqual([
      { wellFormed: false, number: 1, line: 2, problem: 'a new document begins before this one had a root element: the document is cut short' },
      { wellFormed: true, number: 2, rootName: 'r', rootLine: 2, rootText: '<r/>' },
    ]);
  });

  it.each([
    ['<r><a>1', 'input ends inside <a> (expected </a>): the document is cut short'],
    ['<r', 'input ends inside the start tag <r (expected >): the document is cut short'],
    ['<!-- note', 'input ends inside a comment (expected -->): the document is cut short'],
    ['<!DOCTYPE r [ <!ENTITY a "b"> ', 'input ends inside the DOCTYPE (expected >): the document is cut short'],
    ['<?xml version="1.0"?>\n', 'document has no root element (expected one after the XML declaration)'],
  ])('reports an input that ends early: %j', (text, problem) => {
    expect(split([text])).toEqual([{ wellFormed: false, number: 1, line: text.split('\n').length, problem }]);
  });

  it.each([
    ['text before the root', 'id,name\n1,x', 'expected \'<\' but found text "id,name" before the root element'],
    ['a space after <', '< r/>', 'expected a tag name after \'<\' but found " r/>"'],
    ['an unknown <! construct', '<!ELEMENT r ANY>', 'expected <!--, <![CDATA[ or <!DOCTYPE but found "<!E"'],
    ['an end tag with no element open', '</r>', 'found </r> outside any element (expected a root element)'],
    ['CDATA outside the root', '<![CDATA[x]]>', 'expected the root element but found a CDATA section'],
    ['a DOCTYPE inside the root', '<r><!DOCTYPE r></r>', 'a DOCTYPE may only precede the root element'],
    ['< inside an attribute value', '<r a="<"/>', 'expected the closing quote of an attribute of <r> but found \'<\''],
    ['junk in an end tag', '<r></r x>', 'expected \'>\' to end </r but found "x>"'],
  ])('reports %s, saying what was expected', (_case, text, problem) => {
    expect(split([text])).toEqual([{ wellFormed: false, number: 1, line: 1, problem }]);
  });

  it('gives up on a document longer than the limit, and on nesting deeper than the limit', () => {
    expect(split(['<r>', 'x'.repeat(50), 'x'.repeat(50), '</r>'], create({ maxDocumentChars: 80 }))).toEqual([
      { wellFormed: false, number: 1, line: 1, problem: 'document is longer than 80 characters; nvidia-smi documents are well under 1 MiB' },
    ]);
    expect(split(['<a>'.repeat(5)], create({ maxElementDepth: 4 }))).toEqual([
      { wellFormed: false, number: 1, line: 1, problem: 'elements are nested deeper than 4 levels' },
    ]);
  });

  it('knows the first root name as soon as its start tag name is read', () => {
    const splitter = create();
    splitter.push('<?xml version="1.0"?>\n<nvidia_smi_log');
    expect(splitter.firstRootName).toBeUndefined();
    splitter.push('>\n\t<timestamp>');
    expect(splitter.firstRootName).toBe('nvidia_smi_log');
  });

  it('scans a long log fed one character at a time in linear time', () => {
    // 2,000 documents of about 1 KB: 2 MB pushed as 2 million one-character chunks.
    const document = `<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n<nvidia_smi_log>\n${'\t<gpu id="00000000:01:00.0"><used>1 MiB</used></gpu>\n'.repeat(18)}</nvidia_smi_log>\n`;
    const log = document.repeat(2000);
    const splitter = create();
    const started = performance.now();
    let count = 0;
    for (let i = 0; i < log.length; i += 1) count += splitter.push(log[i]!).length;
    const seconds = (performance.now() - started) / 1000;
    expect(count).toBe(2000);
    // Re-scanning or re-joining the held text per chunk would take minutes here.
    expect(seconds).toBeLessThan(10);
  });
});
