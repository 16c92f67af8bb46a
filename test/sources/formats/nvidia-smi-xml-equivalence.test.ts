/**
 * The scanner (production) against the reference path it replaced: every document cut
 * out by XmlDocumentSplitter and parsed by fast-xml-parser. For every input both must give
 * the same sink events, warnings, record count and error, whatever the chunking: on every
 * corpus capture, on the demo logs, and on fast-check mutations of real documents.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/support/errors.js';
import { readNvidiaSmiLog, type XmlDocumentSource } from '../../../src/sources/formats/nvidia-smi-xml.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { XmlDocumentScanner, type ScannedDocument } from '../../../src/sources/lexers/xml/document-scanner.js';
import { XmlDocumentSplitter } from '../../helpers/xml-document-splitter.js';
import type { ReadPlan } from '../../../src/sources/lexers/xml/content-capture.js';
import { NVIDIA_SMI_READ_PLAN } from '../../../src/sources/lexers/xml/nvidia-smi-document.js';
import { corpusFiles, corpusPath, repoRoot } from '../../helpers/corpus.js';
import { chunked, RecordingSink } from '../../helpers/sink.js';

const CONTEXT: SourceContext = { ref: 'log.xml', host: 'node-1', timeZone: 'UTC' };

interface Reading {
  sink: RecordingSink;
  records?: number;
  error?: { message: string; file?: string; location?: string };
  /** Well-formed documents the scanner left to fast-xml-parser (0 for the reference). */
  leftToParser: number;
}

/** Wraps a document source to count the documents handed on without captured content. */
function counting(source: XmlDocumentSource, reading: Reading): XmlDocumentSource {
  const count = (documents: ScannedDocument[]): ScannedDocument[] => {
    for (const document of documents) if (document.wellFormed && document.content === undefined) reading.leftToParser += 1;
    return documents;
  };
  return { push: (text) => count(source.push(text)), finish: () => count(source.finish()) };
}

async function read(text: string, sizes: number[] | undefined, way: 'reference' | 'scanner'): Promise<Reading> {
  const reading: Reading = { sink: new RecordingSink(), leftToParser: 0 };
  const source = way === 'reference' ? new XmlDocumentSplitter() : counting(new XmlDocumentScanner(NVIDIA_SMI_READ_PLAN), reading);
  try {
    reading.records = (await readNvidiaSmiLog(chunked(text, sizes), CONTEXT, reading.sink, source)).records;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    reading.error = { message: error.message, file: error.file, location: error.location };
  }
  return reading;
}

/** Reads `text` both ways and asserts the same outcome; returns the scanner's reading. */
async function expectSameReading(text: string, sizes?: number[]): Promise<Reading> {
  const reference = await read(text, sizes, 'reference');
  const scanner = await read(text, sizes, 'scanner');
  // Strict: an explicit `undefined` field would erase a known value when sinks merge facts.
  expect(scanner.sink).toStrictEqual(reference.sink);
  expect(scanner.records).toEqual(reference.records);
  expect(scanner.error).toEqual(reference.error);
  return scanner;
}

/** One document with one GPU; `gpuBody` goes inside <gpu>. */
function xmlDocument(gpuBody: string, gpuTag = '<gpu id="00000000:01:00.0">'): string {
  return [
    '<?xml version="1.0" ?>',
    '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">',
    '<nvidia_smi_log>',
    '\t<timestamp>Fri Aug  4 11:44:30 2023</timestamp>',
    '\t<attached_gpus>1</attached_gpus>',
    `\t${gpuTag}`,
    '\t\t<product_name>NVIDIA A10G</product_name>',
    '\t\t<uuid>GPU-1</uuid>',
    `\t\t${gpuBody}`,
    '\t</gpu>',
    '</nvidia_smi_log>',
    '',
  ].join('\n');
}

/** `<d>` elements nested inside <gpu>, so that the innermost sits at `level` (the root is level 1). */
function nestedTo(level: number): string {
  return '<d>'.repeat(level - 2) + '</d>'.repeat(level - 2);
}

describe('nvidia-smi XML scanner: the content it captures', () => {
  it('is fast-xml-parser\'s tree cut down to the planned elements: every occurrence, in order, with the id', async () => {
    const text = xmlDocument([
      '<cuda_cores>6144</cuda_cores>',
      '<temperature><gpu_temp>31 C</gpu_temp></temperature>',
      '<fb_memory_usage><total>23028 MiB</total><reserved>0 MiB</reserved><used>1 MiB</used></fb_memory_usage>',
      '<fb_memory_usage><total>1 MiB</total></fb_memory_usage>',
      '<mig_devices>\n\t\t\tNone\n\t\t</mig_devices>',
      '<processes>\n\t\t</processes>',
    ].join('\n\t\t'));
    const scanner = new XmlDocumentScanner(NVIDIA_SMI_READ_PLAN);
    const [document] = [...scanner.push(text), ...scanner.finish()];
    expect(document).toMatchObject({ wellFormed: true, rootName: 'nvidia_smi_log' });
    expect(document?.wellFormed && document.content).toEqual({
      timestamp: 'Fri Aug  4 11:44:30 2023',
      attached_gpus: '1',
      gpu: {
        '@_id': '00000000:01:00.0',
        product_name: 'NVIDIA A10G',
        uuid: 'GPU-1',
        // Both blocks, as the parser lists them; the mapping reads the first.
        fb_memory_usage: [{ total: '23028 MiB', used: '1 MiB' }, { total: '1 MiB' }],
        mig_devices: 'None',
        processes: '',
      },
    });
  });
});

describe('nvidia-smi XML scanner = splitter + fast-xml-parser: what the scanner reads, and what it leaves to the parser', () => {
  const CAPTURED = 0;
  const PARSED = 1;
  it.each([
    ['a usual document', xmlDocument('<fb_memory_usage><total>23028 MiB</total><used>1 MiB</used></fb_memory_usage>'), CAPTURED],
    ['CR and CRLF inside a value (the parser turns both into \\n)', xmlDocument('<processes><process_info><pid>7</pid><type>C</type><process_name>a\r\nb\rc</process_name></process_info></processes>'), CAPTURED],
    ['entities in a value and in the id', xmlDocument('<processes><process_info><pid>7</pid><process_name>R&amp;D &#x41;&#66; &lt;x&gt; &bogus;</process_name></process_info></processes>', '<gpu id="00000000:01:00.0&#32;">'), CAPTURED],
    ['a single-quoted id with spaces around it', xmlDocument('', "<gpu  id = ' 0000:0a:00.0 ' >"), CAPTURED],
    ['an id that is not a bus id, with spaces around it (the warning quotes it trimmed)', xmlDocument('', '<gpu id=" 12 x ">'), CAPTURED],
    ['repeated elements (the first one counts)', xmlDocument('<uuid>GPU-2</uuid><fb_memory_usage><total>1 MiB</total></fb_memory_usage><fb_memory_usage><total>2 MiB</total></fb_memory_usage>'), CAPTURED],
    ['self-closing elements', xmlDocument('<pci/><processes /><mig_devices/><utilization><gpu_util/></utilization>'), CAPTURED],
    ['an empty, self-closing root', '<?xml version="1.0" ?>\n<nvidia_smi_log/>\n', CAPTURED],
    ['a self-closing gpu', '<nvidia_smi_log><attached_gpus>1</attached_gpus><gpu id="00000000:01:00.0"/></nvidia_smi_log>', CAPTURED],
    ['a process list that says N/A', xmlDocument('<processes>N/A</processes>'), CAPTURED],
    ['a process list with text and an element (a list, the parser says)', xmlDocument('<processes>N/A<note/></processes>'), CAPTURED],
    ['a process list with one attribute (a list, the parser says)', xmlDocument('<processes a="1">N/A</processes>'), CAPTURED],
    ['an unread block that holds its own name', xmlDocument('<temperature><temperature>1</temperature><temperature/></temperature>'), CAPTURED],
    ['elements nested 96 levels deep', xmlDocument(nestedTo(96)), CAPTURED],
    ['elements nested 97 levels deep', xmlDocument(nestedTo(97)), PARSED],
    ['elements nested 102 levels deep (the parser refuses)', xmlDocument(nestedTo(102)), PARSED],
    ['a value with an element inside', xmlDocument('<utilization><gpu_util>5<x/> %</gpu_util></utilization>'), PARSED],
    ['a comment inside a value', xmlDocument('<utilization><gpu_util>5<!-- x --> %</gpu_util></utilization>'), PARSED],
    ['a comment between elements', xmlDocument('<!-- x -->'), PARSED],
    ['a processing instruction inside a value', xmlDocument('<utilization><gpu_util>5<?pi x?> %</gpu_util></utilization>'), PARSED],
    ['CDATA', xmlDocument('<utilization><gpu_util><![CDATA[5 %]]></gpu_util></utilization>'), PARSED],
    ['two attributes on the gpu', xmlDocument('', '<gpu id="00000000:01:00.0" minor="0">'), PARSED],
    ['an attribute without a value (the parser drops it)', xmlDocument('', '<gpu id>'), PARSED],
    ['a name the parser rejects: __proto__', xmlDocument('<__proto__/>'), PARSED],
    ['a name the parser rejects: constructor', xmlDocument('<constructor>1</constructor>'), PARSED],
    ['a name the parser renames: toString', xmlDocument('<toString/>'), PARSED],
    ['a name with a no-break space, where the parser ends it', xmlDocument('<utilization><gpu_util\u00a0x>5 %</gpu_util\u00a0x></utilization>'), PARSED],
    ['a name running into "/x", which the parser reads as part of it', xmlDocument('<utilization><gpu_util/x>5 %</gpu_util></utilization>'), PARSED],
  ])('%s', async (_case, text, leftToParser) => {
    for (const sizes of [undefined, [1], [7]]) {
      const scanner = await expectSameReading(text, sizes);
      expect(scanner.leftToParser).toBe(leftToParser);
    }
  });
});

describe('nvidia-smi XML scanner = splitter + fast-xml-parser: corpus', () => {
  const files = corpusFiles('nvidia-smi-xml', (name) => name.endsWith('.xml'));

  it.each(files.map((file) => [path.basename(file), file]))('%s: same reading whole and in odd chunks, without falling back', async (_name, file) => {
    const text = readFileSync(file, 'utf8');
    for (const sizes of [undefined, [977], [1, 2, 3, 5, 8, 13]]) {
      const scanner = await expectSameReading(text, sizes);
      expect(scanner.records).toBe(1);
      expect(scanner.leftToParser).toBe(0);
    }
  });

  it('same reading for every capture appended into one -l log, cut every 4096 characters', async () => {
    const log = files.map((file) => readFileSync(file, 'utf8')).join('');
    const scanner = await expectSameReading(log, [4096]);
    expect(scanner.records).toBe(files.length);
    expect(scanner.leftToParser).toBe(0);
  });
});

describe('nvidia-smi XML scanner = splitter + fast-xml-parser: demo logs', () => {
  const demo = path.join(repoRoot, 'fixtures/demo');
  const logs = readdirSync(demo).filter((name) => name.endsWith('.xml.gz')).sort();

  it('covers the four demo hosts', () => {
    expect(logs).toHaveLength(4);
  });

  it.each(logs)('%s: 312 documents, same events, none left to the parser', async (name) => {
    // Chunks of 16 KiB, as zlib hands them on.
    const text = gunzipSync(readFileSync(path.join(demo, name))).toString('utf8');
    const scanner = await expectSameReading(text, [16 * 1024]);
    expect(scanner.records).toBe(312);
    expect(scanner.leftToParser).toBe(0);
    expect(scanner.sink.warnings).toEqual([]);
  }, 120_000);
});

/** Every element name the mapping reads. */
function plannedNames(plan: ReadPlan): string[] {
  return Object.entries(plan).flatMap(([name, child]) => [name, ...plannedNames(child)]);
}
const PLANNED_TAG = new RegExp(`</?(${[...new Set(plannedNames(NVIDIA_SMI_READ_PLAN))].join('|')})(?=[\\s/>])[^<>]*>`, 'g');

/**
 * Places where the two paths could part: inside a planned start tag just after its name,
 * in an attribute value (start, middle, end), and in the middle of a planned value
 * (`<uuid>GPU-|1234</uuid>`), where text on both sides survives trimming. Random offsets
 * mostly land in blocks no one reads.
 */
function anchors(text: string): { inTag: number[]; inValue: number[] } {
  const inTag: number[] = [];
  const inValue: number[] = [];
  for (const tag of text.matchAll(PLANNED_TAG)) {
    if (tag[0].startsWith('</')) continue;
    inTag.push(tag.index + 1 + tag[1]!.length);
    for (const quoted of tag[0].matchAll(/"([^"]*)"/g)) {
      const valueStart = tag.index + quoted.index + 1;
      inValue.push(valueStart, valueStart + Math.ceil(quoted[1]!.length / 2), valueStart + quoted[1]!.length);
    }
    const afterTag = tag.index + tag[0].length;
    const nextTag = text.indexOf('<', afterTag);
    if (nextTag !== -1 && text.startsWith(`</${tag[1]!}>`, nextTag)) inValue.push(afterTag + Math.ceil((nextTag - afterTag) / 2));
  }
  return { inTag, inValue };
}

/** A planned element with only text (`<pid>17</pid>`): the n-th one's start and end tag are renamed together. */
const PLANNED_LEAF = new RegExp(`<(${[...new Set(plannedNames(NVIDIA_SMI_READ_PLAN))].join('|')})>[^<]*</\\1>`, 'g');
/** Names fast-xml-parser reads differently, rejects or renames, and planned names in the wrong place. */
const LEAF_NAMES = ['uuid', 'total', 'used', 'gpu_util', 'pid', 'processes', 'uuid\u00a0x', '__proto__', 'constructor', 'toString', 'valueOf', 'x:y', 'x'];

/** Inside a value: line ends, entities, markup the parser joins around, numbers the mapping rejects. */
const VALUE_FRAGMENTS = [
  '\r', '\r\n', '\n', '\u00a0', '&amp;', '&#65;', '&#x42;', '&#0;', '&bogus;',
  '<!-- note -->', '<?pi x?>', '<![CDATA[ 5 % ]]>', '<x/>', '<x>1</x>', '<total>1 GiB</total>', 'N/A<x/>', '<x/>N/A', '-', 'x', ' x', 'x ', '>', '"',
];
/** Tag syntax: attributes and what may follow a name. */
const TAG_FRAGMENTS = [' ', '\t', '\n', '/', ' /', '"x"', "'x'", '/x', 'x', ' a="1"', " a='1'", ' a="1" b="2"', ' a', ' a="x>y"', ' id="00000000:09:00.0"', ' =', '\u00a0', 'é'];
/** Whole constructs anywhere. */
const FRAGMENTS = [
  '<', '>', '</', '/>', '"', "'", '\r', '<!-- note -->', '<?xml version="1.0" ?>\n', '<!DOCTYPE nvidia_smi_log>',
  '<gpu id="00000000:0A:00.0">', '</gpu>', '<gpu>', '<uuid>GPU-x</uuid>', '<uuid/>', '<uuid a="1">GPU-y</uuid>',
  '<processes>', '</processes>', '<processes />', '<processes>N/A</processes>', '<process_info><pid>9</pid><type>C</type></process_info>',
  '<mig_devices>', '<mig_device><gpu_instance_id>7</gpu_instance_id></mig_device>', '<total>1 GiB</total>',
  '<__proto__/>', '<constructor>1</constructor>', '<toString/>', '<x\u00e9/>', '<a/b>', '<a"b">', '<temperature>', '</temperature>',
];
const TAG_NAMES = ['gpu', 'uuid', 'total', 'used', 'gpu_util', 'processes', 'process_info', 'pid', 'mig_device', 'temperature', 'supported_clocks', 'x'];

type Mutation =
  | { kind: 'insert'; where: 'tag' | 'value' | 'anywhere'; at: number; fragment: string }
  | { kind: 'remove'; at: number; length: number }
  | { kind: 'duplicate'; at: number; length: number }
  | { kind: 'rename'; occurrence: number; name: string }
  | { kind: 'rename-leaf'; occurrence: number; name: string };

const insert = (where: 'tag' | 'value' | 'anywhere', fragments: string[]): fc.Arbitrary<Mutation> =>
  fc.record({ kind: fc.constant('insert' as const), where: fc.constant(where), at: fc.nat(), fragment: fc.constantFrom(...fragments) });

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: insert('value', VALUE_FRAGMENTS) },
  { weight: 4, arbitrary: insert('tag', TAG_FRAGMENTS) },
  { weight: 2, arbitrary: insert('anywhere', FRAGMENTS) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 200 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 2000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rename' as const), occurrence: fc.nat(), name: fc.constantFrom(...TAG_NAMES) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rename-leaf' as const), occurrence: fc.nat(), name: fc.constantFrom(...LEAF_NAMES) }) },
);

function mutate(text: string, change: Mutation): string {
  switch (change.kind) {
    case 'insert': {
      const places = change.where === 'anywhere' ? [] : anchors(text)[change.where === 'tag' ? 'inTag' : 'inValue'];
      const at = places.length > 0 ? places[change.at % places.length]! : change.at % (text.length + 1);
      return text.slice(0, at) + change.fragment + text.slice(at);
    }
    case 'remove': {
      const at = change.at % (text.length + 1);
      return text.slice(0, at) + text.slice(at + change.length);
    }
    case 'duplicate': {
      const at = change.at % (text.length + 1);
      return text.slice(0, at + change.length) + text.slice(at, at + change.length) + text.slice(at + change.length);
    }
    case 'rename': {
      // The n-th tag naming a planned element, start or end tag.
      const tags = [...text.matchAll(PLANNED_TAG)];
      const tag = tags[change.occurrence % Math.max(1, tags.length)];
      if (tag === undefined) return text;
      const start = tag.index + (tag[0].startsWith('</') ? 2 : 1);
      return text.slice(0, start) + change.name + text.slice(start + tag[1]!.length);
    }
    case 'rename-leaf': {
      const leaves = [...text.matchAll(PLANNED_LEAF)];
      const leaf = leaves[change.occurrence % Math.max(1, leaves.length)];
      if (leaf === undefined) return text;
      const renamed = leaf[0].replace(`<${leaf[1]!}>`, `<${change.name}>`).replace(`</${leaf[1]!}>`, `</${change.name}>`);
      return text.slice(0, leaf.index) + renamed + text.slice(leaf.index + leaf[0].length);
    }
  }
}

const chunkSizes = fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 4 });

describe('nvidia-smi XML scanner = splitter + fast-xml-parser: mutated documents', () => {
  const bases: [string, string][] = [
    // MIG devices, no processes.
    ['netdata-a100-sxm4-mig.xml', readFileSync(corpusPath('nvidia-smi-xml', 'netdata-a100-sxm4-mig.xml'), 'utf8')],
    // Processes, power_readings era.
    ['telegraf-rtx-3080-v12.xml', readFileSync(corpusPath('nvidia-smi-xml', 'telegraf-rtx-3080-v12.xml'), 'utf8')],
    // Two GPUs, v13: gpu_power_readings, processes.
    ['telegraf-dual_a5000-v13.xml twice, as an -l log', readFileSync(corpusPath('nvidia-smi-xml', 'telegraf-dual_a5000-v13.xml'), 'utf8').repeat(2)],
  ];

  it.each(bases)('%s: same reading after any mutations, in any chunks', async (_name, base) => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), chunkSizes, async (changes, sizes) => {
        await expectSameReading(changes.reduce(mutate, base), sizes);
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
