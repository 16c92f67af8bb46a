import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/support/errors.js';
import { requireParser } from '../../src/sources/index.js';

const BINARY = 'binary data, not a text format gpu-audit reads (expected nvidia-smi, DCGM or Prometheus output)';
const XML_HEAD = '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n<nvidia_smi_log>\n';

describe('requireParser', () => {
  it('names an empty input', () => {
    expect(() => requireParser(' \n\t\n', 'empty.log')).toThrow(new InputError('the input is empty', { file: 'empty.log' }));
  });

  it('calls a head with a NUL, or with more than a tenth of other control characters, binary', () => {
    expect(() => requireParser(`${XML_HEAD}\u0000`, 'core')).toThrow(new InputError(BINARY, { file: 'core' }));
    const odd = '\u0001\u0002\ufffd'.repeat(20);
    expect(() => requireParser(`${odd}${'x'.repeat(400)}`, 'blob')).toThrow(BINARY);
    expect(() => requireParser(`${odd}${'x'.repeat(600)}`, 'blob')).not.toThrow(BINARY);
  });

  it('looks at the first 8 KiB only: a long text head is judged by its start', () => {
    const text = `${XML_HEAD}${' '.repeat(9000)}`;
    expect(requireParser(`${text}\u0000`, 'log.xml').description).toBe(requireParser(text, 'log.xml').description);
  });
});
