import { describe, expect, it } from 'vitest';
import { decodeXmlText, QUANTITIES, readQuantity } from '../../../src/sources/lexers/xml/values.js';

describe('readQuantity', () => {
  it.each([
    ['116 MiB', QUANTITIES.memoryMiB, 116],
    ['2048 KiB', QUANTITIES.memoryMiB, 2], // 2048 / 1024
    ['80 GiB', QUANTITIES.memoryMiB, 81920], // 80 x 1024
    ['35.15 W', QUANTITIES.watts, 35.15],
    ['250.00 W', QUANTITIES.watts, 250],
    ['0 %', QUANTITIES.percent, 0],
    ['100 %', QUANTITIES.percent, 100],
    ['4000 KB/s', QUANTITIES.pcieKiBps, 4000],
    ['22430', QUANTITIES.count, 22430],
    ['  7 %\n', QUANTITIES.percent, 7],
  ])('reads %j', (text, quantity, value) => {
    expect(readQuantity(text, quantity)).toEqual({ kind: 'value', value });
  });

  it.each(['N/A', '[N/A]', '[Not Supported]', 'Not Supported', 'Requested functionality has been deprecated', '', '   '])(
    'reads the placeholder %j as missing, not 0',
    (text) => {
      expect(readQuantity(text, QUANTITIES.memoryMiB)).toEqual({ kind: 'missing' });
    },
  );

  it('reads an absent element as missing', () => {
    expect(readQuantity(undefined, QUANTITIES.percent)).toEqual({ kind: 'missing' });
  });

  it.each([
    ['12 TB', QUANTITIES.memoryMiB, '"12 TB" has unit "TB" (expected KiB, MiB or GiB)'],
    ['12', QUANTITIES.memoryMiB, '"12" has no unit (expected KiB, MiB or GiB)'],
    ['35 mW', QUANTITIES.watts, '"35 mW" has unit "mW" (expected W)'],
    ['7 %', QUANTITIES.count, '"7 %" has unit "%" (expected no unit)'],
    ['busy', QUANTITIES.percent, '"busy" is not a number'],
    ['-5.00 W', QUANTITIES.watts, '"-5.00 W" is negative'],
    ['1e999 W', QUANTITIES.watts, '"1e999 W" is not a finite number'],
    ['12.5', QUANTITIES.count, '"12.5" is not a whole number'],
    ['constructor', QUANTITIES.count, '"constructor" is not a number'],
    ['1 constructor', QUANTITIES.count, '"1 constructor" has unit "constructor" (expected no unit)'],
  ])('rejects %j, saying why', (text, quantity, reason) => {
    expect(readQuantity(text, quantity)).toEqual({ kind: 'invalid', reason });
  });
});

describe('decodeXmlText', () => {
  it('resolves the five predefined entities and character references', () => {
    expect(decodeXmlText('R&amp;D &lt;a&gt; &quot;q&quot; &apos;s&apos; &#65;&#x42;')).toBe('R&D <a> "q" \'s\' AB');
  });

  it('leaves any other reference as it is: declared entities are never expanded', () => {
    expect(decodeXmlText('&lol9; &xxe; &#0; &#x110000; & alone')).toBe('&lol9; &xxe; &#0; &#x110000; & alone');
  });

  it('resolves once: &amp;lt; is the text &lt;', () => {
    expect(decodeXmlText('&amp;lt;')).toBe('&lt;');
  });
});
