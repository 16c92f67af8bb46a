import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/support/errors.js';
import type { SourceContext } from '../../../src/sources/types.js';
import { nvidiaSmiXml } from '../../../src/sources/formats/nvidia-smi-xml.js';
import { chunked, RecordingSink } from '../../helpers/sink.js';

const CONTEXT: SourceContext = { ref: 'node-1.xml', host: 'node-1', timeZone: 'UTC' };
const UUID = 'GPU-11111111-2222-3333-4444-555555555555';
const BUS_ID = '00000000:01:00.0';
const GPU_REF = { host: 'node-1', uuid: UUID, pciBusId: BUS_ID };

/** One nvidia-smi document as `-q -x` prints it: declaration, DOCTYPE, root. */
function xmlDocument(body: string, timestamp = 'Fri Aug  4 11:44:30 2023'): string {
  return [
    '<?xml version="1.0" ?>',
    '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">',
    '<nvidia_smi_log>',
    `\t<timestamp>${timestamp}</timestamp>`,
    '\t<driver_version>535.54.03</driver_version>',
    body,
    '</nvidia_smi_log>',
    '',
  ].join('\n');
}

function gpu(children: string, id = BUS_ID, uuid = UUID): string {
  return `\t<gpu id="${id}">\n\t\t<product_name>NVIDIA A100-SXM4-80GB</product_name>\n\t\t<uuid>${uuid}</uuid>\n${children}\n\t</gpu>`;
}

async function parse(text: string, sizes?: number[], context: SourceContext = CONTEXT) {
  const sink = new RecordingSink();
  const result = await nvidiaSmiXml.parse(chunked(text, sizes), context, sink);
  return { sink, result };
}

async function parseError(text: string): Promise<InputError> {
  const error = await parse(text).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

describe('nvidia-smi XML: detect', () => {
  it('claims a document whose root is <nvidia_smi_log>, past BOM, declaration, DOCTYPE and comments', () => {
    const head = '\uFEFF<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">\n<!-- a note -->\n<nvidia_smi_log>\n\t<timestamp>';
    expect(nvidiaSmiXml.detect(head)).toBe(true);
  });

  it('claims a document without a DOCTYPE (driver 418) and a DOCTYPE with an internal subset', () => {
    expect(nvidiaSmiXml.detect('<?xml version="1.0" ?>\n<nvidia_smi_log>\n')).toBe(true);
    expect(nvidiaSmiXml.detect('<!DOCTYPE nvidia_smi_log [ <!ENTITY x "a>b]"> ]>\n<nvidia_smi_log>')).toBe(true);
  });

  it('does not claim CSV, Prometheus text, other XML, random bytes or nothing', () => {
    expect(nvidiaSmiXml.detect('timestamp, name, utilization.gpu [%]\n2026/07/14 09:00:44.579, NVIDIA H100, 0 %\n')).toBe(false);
    expect(nvidiaSmiXml.detect('# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n')).toBe(false);
    expect(nvidiaSmiXml.detect('<?xml version="1.0"?>\n<project><nvidia_smi_log/></project>')).toBe(false);
    expect(nvidiaSmiXml.detect('\u0000\u0001\u00ff<\u0007nvidia_smi_log')).toBe(false);
    expect(nvidiaSmiXml.detect('')).toBe(false);
  });
});

describe('nvidia-smi XML: values', () => {
  it('reads numbers with their units, and converts KiB and GiB to MiB', async () => {
    const { sink } = await parse(xmlDocument(gpu(`
\t\t<fb_memory_usage><total>80 GiB</total><used>512 KiB</used></fb_memory_usage>
\t\t<utilization><gpu_util>35 %</gpu_util><memory_util>7 %</memory_util></utilization>
\t\t<pci><tx_util>4000 KB/s</tx_util><rx_util>91000 KB/s</rx_util></pci>
\t\t<power_readings><power_draw>35.15 W</power_draw></power_readings>`)));
    // 80 GiB = 80 x 1024 = 81920 MiB; 512 KiB = 512 / 1024 = 0.5 MiB.
    expect(sink.samples).toEqual([{
      ref: GPU_REF, time: Date.UTC(2023, 7, 4, 11, 44, 30),
      utilizationPct: 35, memoryUtilizationPct: 7, memoryUsedMiB: 0.5, memoryTotalMiB: 81920,
      powerW: 35.15, pcieRxKiBps: 91000, pcieTxKiBps: 4000,
    }]);
    expect(sink.warnings).toEqual([]);
  });

  it('treats N/A, [N/A], the v13 deprecation text and empty text as no value, never 0', async () => {
    const { sink } = await parse(xmlDocument(gpu(`
\t\t<fb_memory_usage><total>[N/A]</total><used></used></fb_memory_usage>
\t\t<utilization><gpu_util>N/A</gpu_util><memory_util>Requested functionality has been deprecated</memory_util></utilization>
\t\t<gpu_power_readings><power_draw>N/A</power_draw></gpu_power_readings>`)));
    expect(sink.samples).toEqual([{ ref: GPU_REF, time: Date.UTC(2023, 7, 4, 11, 44, 30) }]);
    expect(sink.samples[0]).not.toHaveProperty('utilizationPct');
    expect(sink.warnings).toEqual([]);
  });

  it('omits a value with an unknown unit, a non-number or a negative number, and warns naming element and text', async () => {
    const { sink } = await parse(xmlDocument(gpu(`
\t\t<fb_memory_usage><total>80 TB</total><used>lots MiB</used></fb_memory_usage>
\t\t<power_readings><power_draw>-5.00 W</power_draw></power_readings>
\t\t<utilization><gpu_util>12 %</gpu_util></utilization>`)));
    expect(sink.samples).toEqual([{ ref: GPU_REF, time: Date.UTC(2023, 7, 4, 11, 44, 30), utilizationPct: 12 }]);
    expect(sink.warnings).toEqual([
      { location: 'document 1', message: `GPU ${BUS_ID}: fb_memory_usage/total: "80 TB" has unit "TB" (expected KiB, MiB or GiB); value ignored` },
      { location: 'document 1', message: `GPU ${BUS_ID}: fb_memory_usage/used: "lots MiB" is not a number; value ignored` },
      { location: 'document 1', message: `GPU ${BUS_ID}: power_readings/power_draw: "-5.00 W" is negative; value ignored` },
    ]);
  });

  it('leaves out a utilization above 100 and memory used above the total, warning with the GPU; NVML\'s sentinel is no value', async () => {
    const { sink } = await parse(xmlDocument(gpu(`
\t\t<fb_memory_usage><total>81559 MiB</total><used>999999 MiB</used></fb_memory_usage>
\t\t<utilization><gpu_util>150 %</gpu_util><memory_util>4294967295 %</memory_util></utilization>`)));
    expect(sink.samples).toEqual([{ ref: GPU_REF, time: Date.UTC(2023, 7, 4, 11, 44, 30), memoryTotalMiB: 81559 }]);
    expect(sink.warnings).toEqual([
      { location: 'document 1', message: `GPU ${BUS_ID}: GPU utilization 150 is outside 0-100 %; value left out` },
      { location: 'document 1', message: `GPU ${BUS_ID}: memory used 999999 is outside 0-81559 MiB, the memory total; value left out` },
    ]);
  });

  it('ignores elements it does not know', async () => {
    const { sink } = await parse(xmlDocument(gpu('\t\t<future_block><x>1 zz</x></future_block>\n\t\t<utilization><gpu_util>3 %</gpu_util></utilization>')));
    expect(sink.samples[0]?.utilizationPct).toBe(3);
    expect(sink.warnings).toEqual([]);
  });
});

describe('nvidia-smi XML: power draw across driver generations', () => {
  const powerOf = async (readings: string): Promise<number | undefined> => {
    const { sink } = await parse(xmlDocument(gpu(readings)));
    return sink.samples[0]?.powerW;
  };

  it('reads power_readings/power_draw (R525 and older)', async () => {
    expect(await powerOf('<power_readings><power_draw>66.92 W</power_draw></power_readings>')).toBe(66.92);
  });

  it('reads gpu_power_readings/power_draw (R535), not module_power_readings', async () => {
    expect(await powerOf('<gpu_power_readings><power_draw>67.03 W</power_draw></gpu_power_readings><module_power_readings><power_draw>400.00 W</power_draw></module_power_readings>')).toBe(67.03);
  });

  it('reads average_power_draw (R570+), falling back to instant_power_draw when the average is N/A', async () => {
    expect(await powerOf('<gpu_power_readings><average_power_draw>139.62 W</average_power_draw><instant_power_draw>142.33 W</instant_power_draw></gpu_power_readings>')).toBe(139.62);
    expect(await powerOf('<gpu_power_readings><average_power_draw>N/A</average_power_draw><instant_power_draw>142.33 W</instant_power_draw></gpu_power_readings>')).toBe(142.33);
  });

  it('has no power when every reading is N/A', async () => {
    expect(await powerOf('<power_readings><power_draw>N/A</power_draw></power_readings>')).toBeUndefined();
  });
});

describe('nvidia-smi XML: devices', () => {
  it('describes each GPU: model, memory, MIG mode, PCI device id, driver, architecture', async () => {
    const { sink } = await parse(xmlDocument(gpu(`
\t\t<product_architecture>Ampere</product_architecture>
\t\t<mig_mode><current_mig>Disabled</current_mig><pending_mig>Enabled</pending_mig></mig_mode>
\t\t<minor_number>3</minor_number>
\t\t<pci><pci_device_id>20B210DE</pci_device_id></pci>
\t\t<fb_memory_usage><total>81920 MiB</total></fb_memory_usage>`)));
    // minor_number is the /dev/nvidiaN number, not the nvidia-smi index: no index in the ref.
    expect(sink.devices).toEqual([{
      ref: GPU_REF, model: 'NVIDIA A100-SXM4-80GB', memoryTotalMiB: 81920, migMode: 'disabled',
      pciDeviceId: '20B210DE', driverVersion: '535.54.03', architecture: 'Ampere',
    }]);
  });

  it('normalises an old 4-digit PCI domain and lower-case hex to the 8-digit upper-case form', async () => {
    const { sink } = await parse(xmlDocument(gpu('', '0000:0a:00.0')));
    expect(sink.devices[0]?.ref.pciBusId).toBe('00000000:0A:00.0');
  });

  it('leaves MIG mode unknown where it reads N/A (GPUs without MIG)', async () => {
    const { sink } = await parse(xmlDocument(gpu('<mig_mode><current_mig>N/A</current_mig></mig_mode><mig_devices>\n\tNone\n</mig_devices>')));
    expect(sink.devices).toHaveLength(1);
    expect(sink.devices[0]).not.toHaveProperty('migMode');
  });

  it('resolves predefined entities in names', async () => {
    const { sink } = await parse(xmlDocument(gpu('<processes><process_info><pid>7</pid><type>C</type><process_name>/opt/R&amp;D/train &lt;v2&gt;</process_name></process_info></processes>')));
    expect(sink.processes[0]?.name).toBe('/opt/R&D/train <v2>');
  });
});

describe('nvidia-smi XML: MIG devices and processes', () => {
  // Two GPU instances (1 and 2); processes 100 and 101 run in instance 1, 103 in
  // instance 2, and 102 is a graphics process in instance 2.
  const migGpu = gpu(`
\t\t<mig_mode><current_mig>Enabled</current_mig></mig_mode>
\t\t<mig_devices>
\t\t\t<mig_device><index>0</index><gpu_instance_id>1</gpu_instance_id><compute_instance_id>0</compute_instance_id>
\t\t\t\t<device_attributes><shared><multiprocessor_count>42</multiprocessor_count></shared></device_attributes>
\t\t\t\t<fb_memory_usage><total>40192 MiB</total><reserved>0 MiB</reserved><used>22443 MiB</used></fb_memory_usage></mig_device>
\t\t\t<mig_device><index>1</index><gpu_instance_id>2</gpu_instance_id><compute_instance_id>0</compute_instance_id>
\t\t\t\t<device_attributes><shared><multiprocessor_count>14</multiprocessor_count></shared></device_attributes>
\t\t\t\t<fb_memory_usage><total>9728 MiB</total><used>1013 MiB</used></fb_memory_usage></mig_device>
\t\t</mig_devices>
\t\t<fb_memory_usage><total>81920 MiB</total><used>23506 MiB</used></fb_memory_usage>
\t\t<utilization><gpu_util>N/A</gpu_util><memory_util>N/A</memory_util></utilization>
\t\t<processes>
\t\t\t<process_info><gpu_instance_id>1</gpu_instance_id><compute_instance_id>0</compute_instance_id><pid>100</pid><type>C</type><process_name>python</process_name><used_memory>22400 MiB</used_memory></process_info>
\t\t\t<process_info><gpu_instance_id>1</gpu_instance_id><compute_instance_id>0</compute_instance_id><pid>101</pid><type>C+G</type><process_name>viz</process_name><used_memory>N/A</used_memory></process_info>
\t\t\t<process_info><gpu_instance_id>2</gpu_instance_id><compute_instance_id>0</compute_instance_id><pid>102</pid><type>G</type><process_name>Xorg</process_name><used_memory>4 MiB</used_memory></process_info>
\t\t\t<process_info><gpu_instance_id>2</gpu_instance_id><compute_instance_id>0</compute_instance_id><pid>103</pid><type>C</type><process_name>triton</process_name><used_memory>1000 MiB</used_memory></process_info>
\t\t</processes>`);
  const time = Date.UTC(2023, 7, 4, 11, 44, 30);
  const instance1 = { ...GPU_REF, gpuInstanceId: 1, computeInstanceId: 0 };
  const instance2 = { ...GPU_REF, gpuInstanceId: 2, computeInstanceId: 0 };

  it('makes each MIG device a device of its own, named by the parent and its instance ids', async () => {
    const { sink } = await parse(xmlDocument(migGpu));
    expect(sink.devices).toEqual([
      { ref: GPU_REF, model: 'NVIDIA A100-SXM4-80GB', memoryTotalMiB: 81920, migMode: 'enabled', driverVersion: '535.54.03' },
      { ref: instance1, model: 'NVIDIA A100-SXM4-80GB', memoryTotalMiB: 40192, multiprocessorCount: 42 },
      { ref: instance2, model: 'NVIDIA A100-SXM4-80GB', memoryTotalMiB: 9728, multiprocessorCount: 14 },
    ]);
  });

  it('counts compute processes per GPU (C and C+G) and per instance, with memory but no MIG utilization', async () => {
    const { sink } = await parse(xmlDocument(migGpu));
    expect(sink.samples).toEqual([
      // 100 (C), 101 (C+G), 103 (C); 102 is G.
      { ref: GPU_REF, time, memoryUsedMiB: 23506, memoryTotalMiB: 81920, computeProcessCount: 3 },
      { ref: instance1, time, memoryUsedMiB: 22443, memoryTotalMiB: 40192, computeProcessCount: 2 },
      { ref: instance2, time, memoryUsedMiB: 1013, memoryTotalMiB: 9728, computeProcessCount: 1 },
    ]);
  });

  it('attributes each process to its MIG instance', async () => {
    const { sink } = await parse(xmlDocument(migGpu));
    expect(sink.processes).toEqual([
      { ref: instance1, time, pid: 100, name: 'python', type: 'C', usedMemoryMiB: 22400 },
      { ref: instance1, time, pid: 101, name: 'viz', type: 'C+G' },
      { ref: instance2, time, pid: 102, name: 'Xorg', type: 'G', usedMemoryMiB: 4 },
      { ref: instance2, time, pid: 103, name: 'triton', type: 'C', usedMemoryMiB: 1000 },
    ]);
  });

  it('counts 0 processes for an empty list, and leaves the count unknown when the list is absent', async () => {
    const empty = await parse(xmlDocument(gpu('<processes>\n\t\t</processes>')));
    const selfClosing = await parse(xmlDocument(gpu('<processes />')));
    const absent = await parse(xmlDocument(gpu('')));
    expect(empty.sink.samples[0]?.computeProcessCount).toBe(0);
    expect(selfClosing.sink.samples[0]?.computeProcessCount).toBe(0);
    expect(absent.sink.samples[0]).not.toHaveProperty('computeProcessCount');
  });

  it('skips a process without a pid, with a warning', async () => {
    const { sink } = await parse(xmlDocument(gpu('<processes><process_info><pid>N/A</pid><type>C</type></process_info></processes>')));
    expect(sink.processes).toEqual([]);
    expect(sink.warnings).toEqual([{ location: 'document 1', message: `GPU ${BUS_ID}: process_info 1: has no pid; process skipped` }]);
  });
});

describe('nvidia-smi XML: timestamps', () => {
  it('reads the document timestamp as wall-clock time in the context zone', async () => {
    const berlin = await parse(xmlDocument(gpu('')), undefined, { ...CONTEXT, timeZone: 'Europe/Berlin' });
    const newYork = await parse(xmlDocument(gpu('')), undefined, { ...CONTEXT, timeZone: 'America/New_York' });
    // 11:44:30 in August is CEST (UTC+2) in Berlin: 09:44:30Z; EDT (UTC-4) in New York: 15:44:30Z.
    expect(berlin.sink.samples[0]?.time).toBe(Date.UTC(2023, 7, 4, 9, 44, 30));
    expect(newYork.sink.samples[0]?.time).toBe(Date.UTC(2023, 7, 4, 15, 44, 30));
  });

  it('has no time without a <timestamp>, and warns about one it cannot read', async () => {
    const missing = await parse('<nvidia_smi_log>' + gpu('') + '</nvidia_smi_log>');
    expect(missing.sink.samples[0]).not.toHaveProperty('time');
    const odd = await parse(xmlDocument(gpu(''), '2023-08-04T11:44:30+02:00'));
    expect(odd.sink.samples[0]).not.toHaveProperty('time');
    expect(odd.sink.warnings[0]?.message).toMatch(/^timestamp "2023-08-04T11:44:30\+02:00" is not understood/);
  });
});

describe('nvidia-smi XML: -l logs (many documents in one stream)', () => {
  const log = [
    xmlDocument(gpu('<utilization><gpu_util>10 %</gpu_util></utilization>'), 'Fri Aug  4 11:44:30 2023'),
    xmlDocument(gpu('<utilization><gpu_util>20 %</gpu_util></utilization>'), 'Fri Aug  4 11:44:31 2023'),
    xmlDocument(gpu('<utilization><gpu_util>30 %</gpu_util></utilization>'), 'Fri Aug  4 11:44:32 2023'),
  ].join('');

  it('reads every document; records counts documents', async () => {
    const { sink, result } = await parse(log);
    expect(result.records).toBe(3);
    expect(sink.samples.map((sample) => [sample.time, sample.utilizationPct])).toEqual([
      [Date.UTC(2023, 7, 4, 11, 44, 30), 10],
      [Date.UTC(2023, 7, 4, 11, 44, 31), 20],
      [Date.UTC(2023, 7, 4, 11, 44, 32), 30],
    ]);
  });

  it.each([[[1]], [[7]], [[4096]], [[3, 1, 250]]])('gives identical output whatever the chunk sizes (%j)', async (sizes) => {
    const whole = await parse(log);
    const pieces = await parse(log, sizes);
    expect(pieces.sink).toEqual(whole.sink);
    expect(pieces.result).toEqual(whole.result);
  });

  it('keeps earlier documents and warns when the last one is cut short (the usual end of an -l log)', async () => {
    const cut = log.slice(0, log.lastIndexOf('<gpu_util>') + 5);
    const lines = cut.split('\n').length;
    const { sink, result } = await parse(cut, [64]);
    expect(result.records).toBe(2);
    expect(sink.samples.map((sample) => sample.utilizationPct)).toEqual([10, 20]);
    expect(sink.warnings).toEqual([{
      location: `document 3, line ${lines}`,
      message: 'input ends inside <utilization> (expected </utilization>): the document is cut short; document skipped',
    }]);
  });

  it('skips a document cut off mid-write when the next one begins, and reads on', async () => {
    const documents = log.split('<?xml').slice(1).map((text) => '<?xml' + text);
    // nvidia-smi was killed after writing `<gpu_util>2` of document 2, and the log restarted.
    const restarted = documents[0]! + documents[1]!.slice(0, documents[1]!.indexOf('<gpu_util>') + '<gpu_util>2'.length) + documents[2]!;
    const { sink, result } = await parse(restarted, [5]);
    expect(result.records).toBe(2);
    expect(sink.samples.map((sample) => sample.utilizationPct)).toEqual([10, 30]);
    // Document 1 fills lines 1-11; document 3's declaration follows document 2's line 9 on the same line 20.
    expect(sink.warnings).toEqual([{
      location: 'document 2, line 20',
      message: 'a new document begins inside <gpu_util> (expected </gpu_util>): the document is cut short; document skipped',
    }]);
  });

  it('skips a garbled document with a warning and reads the next', async () => {
    const documents = log.split('<?xml').slice(1).map((text) => '<?xml' + text);
    const garbled = documents[0]! + documents[1]!.replace('</utilization>', '</utilisation>') + documents[2]!;
    const { sink, result } = await parse(garbled);
    expect(result.records).toBe(2);
    expect(sink.warnings).toEqual([{
      // Document 1 fills lines 1-11 (11 lines, each ending in a newline); line 9 of document 2 is input line 20.
      location: 'document 2, line 20',
      message: 'expected </utilization> but found </utilisation>; document skipped',
    }]);
  });

  it('reports a repeated value problem once, at the first document with it', async () => {
    const bad = xmlDocument(gpu('<utilization><gpu_util>busy</gpu_util></utilization>'));
    const { sink } = await parse(bad + bad + bad);
    expect(sink.warnings).toEqual([{ location: 'document 1', message: `GPU ${BUS_ID}: utilization/gpu_util: "busy" is not a number; value ignored` }]);
  });
});

describe('nvidia-smi XML: unreadable input', () => {
  it('rejects a single truncated document, naming the file, document and line', async () => {
    const text = xmlDocument(gpu('<fb_memory_usage><total>81920 MiB</total>'));
    const cut = text.slice(0, text.indexOf('<total>') + 3);
    const error = await parseError(cut);
    expect(error.file).toBe('node-1.xml');
    expect(error.location).toBe(`document 1, line ${cut.split('\n').length}`);
    expect(error.message).toBe('input ends inside <fb_memory_usage> (expected </fb_memory_usage>): the document is cut short');
  });

  it('rejects garbage, saying what was expected', async () => {
    const error = await parseError('hello, world\n');
    expect(error.location).toBe('document 1, line 1');
    expect(error.message).toBe('expected \'<\' but found text "hello, world" before the root element');
  });

  it('rejects an input with no <nvidia_smi_log> document, after warning about the other root', async () => {
    const sink = new RecordingSink();
    const error = await nvidiaSmiXml.parse(chunked('<?xml version="1.0"?>\n<project>\n</project>\n'), CONTEXT, sink).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe('no <nvidia_smi_log> document found (expected the output of nvidia-smi -q -x)');
    expect(sink.warnings).toEqual([{ location: 'document 1, line 2', message: 'root element is <project>, not <nvidia_smi_log>; document skipped' }]);
  });

  it('rejects an empty input', async () => {
    expect((await parseError('')).message).toMatch(/^no <nvidia_smi_log> document found/);
    expect((await parseError('\n  \n')).message).toMatch(/^no <nvidia_smi_log> document found/);
  });

  it('reads a document with no GPUs as a document (records 1), with nothing to observe', async () => {
    const { sink, result } = await parse(xmlDocument(''));
    expect(result.records).toBe(1);
    expect(sink).toEqual(new RecordingSink());
  });
});
