import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvidiaSmiXml } from '../../../src/sources/formats/nvidia-smi-xml.js';
import { detectParser } from '../../../src/sources/index.js';
import { HEAD_CHARS } from '../../../src/sources/inputs.js';
import { chunked, RecordingSink } from '../../helpers/sink.js';

const CONTEXT = { ref: 'hostile.xml', host: 'node-1', timeZone: 'UTC' };

function withDoctype(doctype: string, productName: string): string {
  return `<?xml version="1.0" ?>\n${doctype}\n<nvidia_smi_log>\n\t<gpu id="00000000:01:00.0">\n\t\t<product_name>${productName}</product_name>\n\t\t<uuid>GPU-1</uuid>\n\t</gpu>\n</nvidia_smi_log>\n`;
}

async function parse(text: string): Promise<RecordingSink> {
  const sink = new RecordingSink();
  await nvidiaSmiXml.parse(chunked(text, [100]), CONTEXT, sink);
  return sink;
}

describe('nvidia-smi XML: DTDs and entities are never loaded or expanded', () => {
  it('leaves a reference to an internal entity as literal text', async () => {
    const sink = await parse(withDoctype('<!DOCTYPE nvidia_smi_log [ <!ENTITY fake "Tesla V100"> ]>', '&fake;'));
    expect(sink.devices[0]?.model).toBe('&fake;');
  });

  it('stays fast and small on a billion-laughs document', async () => {
    // &lol9; would expand to 10^9 copies of "lol" (3 GB) if entities were expanded.
    const levels = Array.from({ length: 9 }, (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level};`.repeat(10)}">`);
    const doctype = `<!DOCTYPE nvidia_smi_log [\n<!ENTITY lol0 "lol">\n${levels.join('\n')}\n]>`;
    const started = performance.now();
    const sink = await parse(withDoctype(doctype, '&lol9;&lol9;'));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(sink.devices[0]?.model).toBe('&lol9;&lol9;');
    expect(JSON.stringify(sink).length).toBeLessThan(1000);
  });

  describe('external identifiers', () => {
    let directory = '';
    let secretUrl = '';
    const SECRET = 'secret-marker-7f3a9c';

    beforeAll(async () => {
      directory = await mkdtemp(path.join(tmpdir(), 'gpu-audit-xxe-'));
      const secretFile = path.join(directory, 'secret.txt');
      await writeFile(secretFile, SECRET);
      secretUrl = pathToFileURL(secretFile).href;
    });

    afterAll(async () => {
      await rm(directory, { recursive: true, force: true });
    });

    it('never reads a SYSTEM DTD, an external entity or a parameter entity', async () => {
      const doctype = `<!DOCTYPE nvidia_smi_log SYSTEM "${secretUrl}" [\n<!ENTITY xxe SYSTEM "${secretUrl}">\n<!ENTITY % remote SYSTEM "${secretUrl}">\n%remote;\n]>`;
      const sink = await parse(withDoctype(doctype, '&xxe;'));
      expect(sink.devices[0]?.model).toBe('&xxe;');
      expect(JSON.stringify(sink)).not.toContain(SECRET);
    });

    it('never reads the conventional file:///etc/passwd either', async () => {
      const sink = await parse(withDoctype('<!DOCTYPE nvidia_smi_log SYSTEM "file:///etc/passwd" [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>', '&xxe;'));
      expect(sink.devices[0]?.model).toBe('&xxe;');
      expect(JSON.stringify(sink)).not.toContain('root:');
    });
  });

  it('is detected past an internal subset longer than the head detection reads (100 KB), and parsed without expanding it', async () => {
    const subset = Array.from({ length: 4000 }, (_, index) => `<!ELEMENT e${index} (#PCDATA)>`).join('\n');
    const text = withDoctype(`<!DOCTYPE nvidia_smi_log [\n<!ENTITY fake "Tesla V100">\n${subset}\n]>`, '&fake;');
    expect(text.indexOf('<nvidia_smi_log>')).toBeGreaterThan(HEAD_CHARS);
    expect(detectParser(text.slice(0, HEAD_CHARS))?.format).toBe(nvidiaSmiXml.format);
    const sink = await parse(text);
    expect(sink.devices.map((device) => device.model)).toEqual(['&fake;']);
  });

  it('rejects element names that would pollute prototypes, as a defective document', async () => {
    const sink = new RecordingSink();
    const good = withDoctype('', 'NVIDIA A10G');
    const bad = '<?xml version="1.0" ?>\n<nvidia_smi_log><gpu><__proto__><polluted>yes</polluted></__proto__></gpu></nvidia_smi_log>\n';
    const result = await nvidiaSmiXml.parse(chunked(good + bad), CONTEXT, sink);
    expect(result.records).toBe(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(sink.warnings).toHaveLength(1);
    expect(sink.warnings[0]?.location).toBe('document 2, line 10');
    expect(sink.warnings[0]?.message).toMatch(/^the XML parser rejected the document: .*__proto__/);
  });
});

describe('nvidia-smi XML: oversized input is refused with bounded memory', () => {
  /** A document whose <product_name> text never ends: 1 GiB of 'A' would follow, produced lazily. */
  async function* hugeTextNode(megabytes: number): AsyncIterable<string> {
    yield '<?xml version="1.0" ?>\n<nvidia_smi_log>\n\t<gpu id="00000000:01:00.0">\n\t\t<product_name>';
    const mebibyte = 'A'.repeat(1024 * 1024);
    for (let i = 0; i < megabytes; i += 1) yield mebibyte;
    yield '</product_name>\n\t</gpu>\n</nvidia_smi_log>\n';
  }

  it('refuses a single 1 GiB text node at the document size limit, quickly and holding at most that much', async () => {
    let consumed = 0;
    async function* counted(): AsyncIterable<string> {
      for await (const chunk of hugeTextNode(1024)) {
        consumed += chunk.length;
        yield chunk;
      }
    }
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const failure = await nvidiaSmiXml.parse(counted(), CONTEXT, new RecordingSink()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toMatch(/limit|longer|too (long|large)/i);
    // Past the limit the document is abandoned and the rest only scanned for the next `<?xml`:
    // the whole gigabyte goes by in seconds while memory stays near the 64 Mi-character limit.
    expect(consumed).toBeGreaterThanOrEqual(1024 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(512 * 1024 * 1024);
  });

  it('refuses nesting deeper than the limit without recursion trouble', async () => {
    const depth = 100_000;
    const text = `<?xml version="1.0" ?>\n<nvidia_smi_log>${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</nvidia_smi_log>\n`;
    const failure = await nvidiaSmiXml.parse(chunked(text, [4096]), CONTEXT, new RecordingSink()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toMatch(/nest|deep|level/i);
  });
});
