import { describe, expect, it } from 'vitest';
import {
  isMissingCell, normalisePciBusId, normalisePciDeviceId, parseCount, parseDecimal, parseQuantity,
} from '../../../../src/sources/lexers/text/values.js';

describe('isMissingCell', () => {
  it.each([
    '[N/A]', '[Not Supported]', '[Insufficient Permissions]', '[Unknown Error]',
    '[Requested functionality has been deprecated]', '[Function Not Found]', 'N/A', '',
  ])('treats %j as no value', (cell) => {
    expect(isMissingCell(cell)).toBe(true);
  });

  it.each(['0', '0 %', 'NVIDIA H100 80GB HBM3', 'Disabled'])('treats %j as a value', (cell) => {
    expect(isMissingCell(cell)).toBe(false);
  });
});

describe('parseDecimal', () => {
  it('reads integers, decimals and negatives', () => {
    expect(parseDecimal('0')).toBe(0);
    expect(parseDecimal('433.78')).toBe(433.78);
    expect(parseDecimal('-3')).toBe(-3);
  });

  it('reads numbers too long to sum exactly through Number()', () => {
    expect(parseDecimal('1234567890123456789')).toBe(Number('1234567890123456789'));
    expect(parseDecimal('0.000001')).toBe(0.000001);
  });

  it('rejects what Number() would quietly accept', () => {
    for (const text of ['', ' ', '-', '.', '0x10', '1e3', ' 5', '5 ', '1.2.3', 'Infinity']) {
      expect(parseDecimal(text), text).toBeNaN();
    }
  });
});

describe('parseCount', () => {
  it('reads whole non-negative numbers only', () => {
    expect(parseCount('21180')).toBe(21180);
    expect(parseCount('1.5')).toBeNaN();
    expect(parseCount('-1')).toBeNaN();
  });
});

describe('parseQuantity', () => {
  it('reads a value that repeats the header unit, and one that does not (nounits)', () => {
    expect(parseQuantity('575 MiB', 'MiB')).toBe(575);
    expect(parseQuantity('575', 'MiB')).toBe(575);
    expect(parseQuantity('38 %', '%')).toBe(38);
    expect(parseQuantity('433.78 W', 'W')).toBe(433.78);
  });

  it('gives undefined, never 0, for bracketed values', () => {
    expect(parseQuantity('[N/A]', 'MiB')).toBeUndefined();
    expect(parseQuantity('[Not Supported]', '%')).toBeUndefined();
  });

  it('gives NaN for a value in another unit or not a number', () => {
    expect(parseQuantity('5 GiB', 'MiB')).toBeNaN();
    expect(parseQuantity('lots', 'MiB')).toBeNaN();
  });

  it('accepts any printed unit where the header names none', () => {
    expect(parseQuantity('53 C', undefined)).toBe(53);
  });
});

describe('normalisePciBusId', () => {
  it('pads the domain to 8 hex digits and upper-cases', () => {
    expect(normalisePciBusId('00000000:0C:00.0')).toBe('00000000:0C:00.0');
    expect(normalisePciBusId('0000:04:00.0')).toBe('00000000:04:00.0');
    expect(normalisePciBusId('0000:0c:00.0')).toBe('00000000:0C:00.0');
    expect(normalisePciBusId('3b:00.0')).toBe('00000000:3B:00.0');
  });

  it('rejects text that is not a bus id', () => {
    expect(normalisePciBusId('GPU-0')).toBeUndefined();
    expect(normalisePciBusId('00000000:0C:00')).toBeUndefined();
  });
});

describe('normalisePciDeviceId', () => {
  it('writes the CSV spelling as the XML one', () => {
    expect(normalisePciDeviceId('0x233010DE')).toBe('233010DE');
    expect(normalisePciDeviceId('0x1e8110de')).toBe('1E8110DE');
    expect(normalisePciDeviceId('20B010DE')).toBe('20B010DE');
  });

  it('rejects text that is not hex', () => {
    expect(normalisePciDeviceId('0xZZ')).toBeUndefined();
  });
});
