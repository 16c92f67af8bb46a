import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/support/errors.js';
import { dcgmExporter } from '../../../src/sources/formats/dcgm-exporter.js';
import { parseWith } from '../../helpers/parse.js';

const GPU_A = 'gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:01:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1",DCGM_FI_DRIVER_VERSION="570.86.15"';
const GPU_B = 'gpu="1",UUID="GPU-bbbb",pci_bus_id="00000000:02:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1",DCGM_FI_DRIVER_VERSION="570.86.15"';

const REF_A = { host: 'node-1', uuid: 'GPU-aaaa', pciBusId: '00000000:01:00.0', index: 0 };
const REF_B = { host: 'node-1', uuid: 'GPU-bbbb', pciBusId: '00000000:02:00.0', index: 1 };

/** A two-GPU scrape as dcgm-exporter prints it (HELP/TYPE, then one line per GPU). */
function scrape(values: { utilA: number; utilB: number }, timestamp = ''): string {
  const at = timestamp === '' ? '' : ` ${timestamp}`;
  return [
    '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).',
    '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
    `DCGM_FI_DEV_GPU_UTIL{${GPU_A}} ${values.utilA}${at}`,
    `DCGM_FI_DEV_GPU_UTIL{${GPU_B}} ${values.utilB}${at}`,
    '# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).',
    '# TYPE DCGM_FI_DEV_FB_FREE gauge',
    `DCGM_FI_DEV_FB_FREE{${GPU_A}} 60000${at}`,
    `DCGM_FI_DEV_FB_FREE{${GPU_B}} 80000${at}`,
    '# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).',
    '# TYPE DCGM_FI_DEV_FB_USED gauge',
    `DCGM_FI_DEV_FB_USED{${GPU_A}} 20985${at}`,
    `DCGM_FI_DEV_FB_USED{${GPU_B}} 985${at}`,
    '# HELP DCGM_FI_DEV_FB_RESERVED Framebuffer memory reserved (in MiB).',
    '# TYPE DCGM_FI_DEV_FB_RESERVED gauge',
    `DCGM_FI_DEV_FB_RESERVED{${GPU_A}} 574${at}`,
    `DCGM_FI_DEV_FB_RESERVED{${GPU_B}} 574${at}`,
    '# HELP DCGM_FI_PROF_SM_ACTIVE Ratio of cycles an SM has at least 1 warp assigned.',
    '# TYPE DCGM_FI_PROF_SM_ACTIVE gauge',
    `DCGM_FI_PROF_SM_ACTIVE{${GPU_A}} 0.250000${at}`,
    `DCGM_FI_PROF_SM_ACTIVE{${GPU_B}} 0.000000${at}`,
    '',
  ].join('\n');
}

describe('dcgm-exporter detect', () => {
  it('claims a scrape with or without HELP/TYPE lines, and behind curl -v noise', () => {
    expect(dcgmExporter.detect(scrape({ utilA: 1, utilB: 2 }))).toBe(true);
    expect(dcgmExporter.detect(`DCGM_FI_DEV_GPU_UTIL{${GPU_A}} 91\n`)).toBe(true);
    expect(dcgmExporter.detect(`* Trying 10.0.0.1:9400...\n> GET /metrics HTTP/1.1\n< HTTP/1.1 200 OK\n\nDCGM_FI_DEV_GPU_UTIL{${GPU_A}} 91\n`)).toBe(true);
  });

  it.each([
    ['nvidia-smi CSV', 'timestamp, name, pci.bus_id, utilization.gpu [%]\n2026/07/14 09:00:44.579, NVIDIA H100, 00000000:01:00.0, 3 %\n'],
    ['nvidia-smi XML', '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n<nvidia_smi_log>\n'],
    ['the exporter counter CSV', '# Format\n# DCGM FIELD, Prometheus metric type, help message\nDCGM_FI_DEV_GPU_UTIL,      gauge, GPU utilization (in %).\n'],
    ['another exporter', '# HELP node_load1 1m load average.\n# TYPE node_load1 gauge\nnode_load1 0.5\n'],
    ['prose that names a field', 'The exporter exports DCGM_FI_DEV_GPU_UTIL by default.\nSee the docs.\n'],
    ['an empty input', ''],
  ])('does not claim %s', (_name, head) => {
    expect(dcgmExporter.detect(head)).toBe(false);
  });
});

describe('dcgm-exporter sendsAllAtEnd: one scrape, by its timestamps, is read without a worker', () => {
  const scrape = (ms: number, gpus = 3): string => [
    '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).',
    '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
    ...Array.from({ length: gpus }, (_, gpu) => `DCGM_FI_DEV_GPU_UTIL{gpu="${gpu}",UUID="GPU-${gpu}"} ${gpu * 10} ${ms}`),
    '# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).',
    '# TYPE DCGM_FI_DEV_FB_USED gauge',
    ...Array.from({ length: gpus }, (_, gpu) => `DCGM_FI_DEV_FB_USED{gpu="${gpu}",UUID="GPU-${gpu}"} ${gpu * 1000} ${ms}`),
    '',
  ].join('\n');
  const decide = (text: string): boolean => dcgmExporter.sendsAllAtEnd!(text.slice(0, 200), `cut off line\n${text.slice(-150)}`);

  it('one scrape, every sample stamped alike: yes', () => {
    expect(decide(scrape(1_793_577_600_000))).toBe(true);
    expect(decide(scrape(1_793_577_600_000).replaceAll('\n', '\r\n'))).toBe(true);
  });

  it('scrapes at several times, or samples without timestamps (nothing tells one scrape from many): no', () => {
    expect(decide(scrape(1_793_577_600_000) + scrape(1_793_577_630_000))).toBe(false);
    expect(decide(scrape(1_793_577_600_000).replaceAll(' 1793577600000', ''))).toBe(false);
  });

  it('looks only at whole lines of the tail: its first, likely cut, does not count', () => {
    // The tail's only sample line is its cut first line: no last timestamp, so no.
    expect(dcgmExporter.sendsAllAtEnd!(scrape(1_000), 'DCGM_FI_DEV_FB_USED{gpu="2"} 5 1000\n# EOF\n')).toBe(false);
  });
});

describe('dcgm-exporter parse', () => {
  it('skips a series past the label caps in force, with the reason, and says why when nothing is left', async () => {
    const text = scrape({ utilA: 10, utilB: 20 }).replace('Hostname="node-1",', 'Hostname="node-1",team="a-very-long-team-name-for-tests",');
    // Only GPU_A's first line has the long label: it is skipped, the rest is read.
    const { sink } = await parseWith(dcgmExporter, text, undefined, { limits: { labelsPerSeries: 256, labelValueChars: 30, seriesPerAnswer: 1, filesPerRun: 1 } });
    expect(sink.warnings).toEqual([{ location: 'line 3', message: expect.stringMatching(/: label team has a value of 31 characters \(at most 30 are read; --input-limit label-chars=N reads more\)$/u) }]);
    expect(sink.samples.find((sample) => sample.ref.uuid === 'GPU-aaaa')).not.toHaveProperty('utilizationPct');
    expect(sink.samples.find((sample) => sample.ref.uuid === 'GPU-bbbb')?.utilizationPct).toBe(20);
    // A cap that every series passes leaves nothing, and the error says why.
    await expect(parseWith(dcgmExporter, text, undefined, { limits: { labelsPerSeries: 3, labelValueChars: 4096, seriesPerAnswer: 1, filesPerRun: 1 } }))
      .rejects.toThrow('no DCGM_FI_ series found: 10 lines skipped, the first at line 3: more than 3 labels (--input-limit labels=N reads more)');
  });

  it('sends one sample per GPU per scrape with every field it read, and the GPUs as inventory', async () => {
    const { sink, result } = await parseWith(dcgmExporter, scrape({ utilA: 40, utilB: 0 }));
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([
      // total = used + free + reserved: 20985 + 60000 + 574 = 81559 MiB; SM_ACTIVE 0.25 x 100 = 25 %
      { ref: REF_A, utilizationPct: 40, memoryUsedMiB: 20985, memoryTotalMiB: 81559, smActivePct: 25 },
      // 985 + 80000 + 574 = 81559 MiB
      { ref: REF_B, utilizationPct: 0, memoryUsedMiB: 985, memoryTotalMiB: 81559, smActivePct: 0 },
    ]);
    expect(sink.devices).toEqual([
      { ref: REF_A, model: 'NVIDIA H100 80GB HBM3', driverVersion: '570.86.15', memoryTotalMiB: 81559 },
      { ref: REF_B, model: 'NVIDIA H100 80GB HBM3', driverVersion: '570.86.15', memoryTotalMiB: 81559 },
    ]);
    expect(sink.warnings).toEqual([]);
  });

  it('reads DCGM 4.6 field names like the old ones', async () => {
    const text = [
      `DCGM_FI_DEV_GPU_UTIL_RATIO{${GPU_A}} 55`,
      `DCGM_FI_DEV_BOARD_POWER_WATTS{${GPU_A}} 312.5`,
      `DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO{${GPU_A}} 0.5`,
      `DCGM_FI_PROF_TENSOR_UTIL_RATIO{${GPU_A}} 0.125`,
    ].join('\n');
    const { sink } = await parseWith(dcgmExporter, text);
    // 0.5 x 100 = 50 %, 0.125 x 100 = 12.5 %
    expect(sink.samples).toEqual([{ ref: REF_A, utilizationPct: 55, powerW: 312.5, grEngineActivePct: 50, tensorActivePct: 12.5 }]);
  });

  it('leaves DCGM blank sentinels out instead of reading them as numbers', async () => {
    const text = [
      `DCGM_FI_DEV_GPU_UTIL{${GPU_A}} 9223372036854775794`,
      `DCGM_FI_DEV_POWER_USAGE{${GPU_A}} 140737488355328.000000`,
      `DCGM_FI_DEV_FB_USED{${GPU_A}} 1024`,
    ].join('\n');
    const { sink } = await parseWith(dcgmExporter, text);
    expect(sink.samples).toEqual([{ ref: REF_A, memoryUsedMiB: 1024 }]);
    expect(sink.warnings).toEqual([]);
  });

  it('splits concatenated scrapes without timestamps where a series repeats; samples are point values', async () => {
    const { sink, result } = await parseWith(dcgmExporter, scrape({ utilA: 40, utilB: 0 }) + scrape({ utilA: 90, utilB: 10 }));
    expect(result.records).toBe(2);
    expect(sink.samples.map((sample) => [sample.ref.index, sample.utilizationPct, sample.time])).toEqual([
      [0, 40, undefined], [1, 0, undefined], [0, 90, undefined], [1, 10, undefined],
    ]);
    // Inventory is sent once: the second scrape says nothing new about the GPUs.
    expect(sink.devices).toHaveLength(2);
  });

  it('stamps samples with the line timestamps and splits scrapes where the timestamp changes', async () => {
    // Two scrapes that share no series: only the timestamp tells them apart.
    const text = [
      `DCGM_FI_DEV_GPU_UTIL{${GPU_A}} 40 1700000000000`,
      `DCGM_FI_DEV_FB_USED{${GPU_A}} 100 1700000000000`,
      `DCGM_FI_DEV_GPU_UTIL{${GPU_B}} 70 1700000030000`,
      `DCGM_FI_DEV_FB_USED{${GPU_B}} 200 1700000030000`,
    ].join('\n');
    const { sink, result } = await parseWith(dcgmExporter, text);
    expect(result.records).toBe(2);
    expect(sink.samples).toEqual([
      { ref: REF_A, time: 1_700_000_000_000, utilizationPct: 40, memoryUsedMiB: 100 },
      { ref: REF_B, time: 1_700_000_030_000, utilizationPct: 70, memoryUsedMiB: 200 },
    ]);
  });

  it('gives the same observations wherever the chunks are cut', async () => {
    // Two timestamped scrapes, the second with CRLF line ends, so cuts also fall between \r and \n.
    const text = scrape({ utilA: 40, utilB: 0 }, '1700000000000') + scrape({ utilA: 90, utilB: 10 }, '1700000030000').replaceAll('\n', '\r\n');
    const whole = await parseWith(dcgmExporter, text);
    expect(whole.result.records).toBe(2);
    expect(whole.sink.samples).toHaveLength(4);
    for (let cut = 1; cut < text.length; cut += 1) {
      const split = await parseWith(dcgmExporter, text, [cut, text.length]);
      expect(split.sink, `cut at ${cut}`).toEqual(whole.sink);
      expect(split.result).toEqual(whole.result);
    }
    const byCharacter = await parseWith(dcgmExporter, text, [1]);
    expect(byCharacter.sink).toEqual(whole.sink);
  });

  it('reads labels by name in any order, with escaped quotes in values', async () => {
    const text = [
      'DCGM_FI_DEV_GPU_UTIL{Hostname="node-1",modelName="GPU \\"X\\"",UUID="GPU-aaaa",gpu="0"} 12',
      'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-aaaa",Hostname="node-1",modelName="GPU \\"X\\""} 34',
    ].join('\n');
    const { sink, result } = await parseWith(dcgmExporter, text);
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([{ ref: { host: 'node-1', uuid: 'GPU-aaaa', index: 0 }, utilizationPct: 12, memoryUsedMiB: 34 }]);
    expect(sink.devices[0]?.model).toBe('GPU "X"');
  });

  it('takes the host from the input when the series have no Hostname label', async () => {
    const { sink } = await parseWith(dcgmExporter, 'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaaa"} 5\n', undefined, { host: 'from-file' });
    expect(sink.samples[0]?.ref).toEqual({ host: 'from-file', uuid: 'GPU-aaaa', index: 0 });
  });

  it('makes MIG instances devices of their own with their profile, and marks the parent MIG-enabled', async () => {
    const mig = 'gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:01:00.0",device="nvidia0",modelName="NVIDIA A100-SXM4-40GB",GPU_I_PROFILE="3g.20gb",GPU_I_ID="2",Hostname="node-1"';
    const text = [
      `DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:01:00.0",device="nvidia0",modelName="NVIDIA A100-SXM4-40GB",Hostname="node-1"} 88.5`,
      `DCGM_FI_PROF_GR_ENGINE_ACTIVE{${mig}} 0.420000`,
      `DCGM_FI_DEV_FB_USED{${mig}} 9000`,
      `DCGM_FI_DEV_FB_FREE{${mig}} 10875`,
    ].join('\n');
    const { sink } = await parseWith(dcgmExporter, text);
    const instance = { ...REF_A, gpuInstanceId: 2 };
    expect(sink.samples).toEqual([
      { ref: REF_A, powerW: 88.5 },
      // 0.42 x 100 = 42 %; total 9000 + 10875 = 19875 MiB (no FB_RESERVED in this scrape)
      { ref: instance, grEngineActivePct: 42, memoryUsedMiB: 9000, memoryTotalMiB: 19875 },
    ]);
    expect(sink.devices).toEqual([
      { ref: REF_A, model: 'NVIDIA A100-SXM4-40GB' },
      { ref: REF_A, model: 'NVIDIA A100-SXM4-40GB', migMode: 'enabled' },
      { ref: instance, model: 'NVIDIA A100-SXM4-40GB', migProfile: '3g.20gb', memoryTotalMiB: 19875 },
    ]);
  });

  it('turns pod labels into assignments, one per pod sharing a GPU, with the sample time', async () => {
    // With time-slicing the exporter repeats each series once per pod; values agree.
    const text = [
      `DCGM_FI_DEV_GPU_UTIL{${GPU_A},pod="vllm-0",namespace="serving",container="vllm"} 60 1700000000000`,
      `DCGM_FI_DEV_GPU_UTIL{${GPU_A},pod="embed-1",namespace="serving",container="tei"} 60 1700000000000`,
      `DCGM_FI_DEV_FB_USED{${GPU_A},pod="vllm-0",namespace="serving",container="vllm"} 30000 1700000000000`,
      `DCGM_FI_DEV_FB_USED{${GPU_A},pod="embed-1",namespace="serving",container="tei"} 30000 1700000000000`,
    ].join('\n');
    const { sink, result } = await parseWith(dcgmExporter, text);
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([{ ref: REF_A, time: 1_700_000_000_000, utilizationPct: 60, memoryUsedMiB: 30000 }]);
    expect(sink.assignments).toEqual([
      { ref: REF_A, time: 1_700_000_000_000, namespace: 'serving', pod: 'vllm-0', container: 'vllm' },
      { ref: REF_A, time: 1_700_000_000_000, namespace: 'serving', pod: 'embed-1', container: 'tei' },
    ]);
  });

  it('skips junk lines with a warning and reads on', async () => {
    const text = `DCGM_FI_DEV_GPU_UTIL{${GPU_A}} 91\n* Connection #0 to host 192.168.1.16 left intact\nDCGM_FI_DEV_FB_USED{${GPU_A}} 5120\n`;
    const { sink, result } = await parseWith(dcgmExporter, text);
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([{ ref: REF_A, utilizationPct: 91, memoryUsedMiB: 5120 }]);
    expect(sink.warnings).toEqual([
      { location: 'line 2', message: 'skipped "* Connection #0 to host 192.168.1.16 left intact": not a metric line' },
    ]);
  });

  it('warns about a value a field cannot hold and keeps the other fields', async () => {
    const { sink } = await parseWith(dcgmExporter, `DCGM_FI_DEV_GPU_UTIL{${GPU_A}} -4\nDCGM_FI_DEV_FB_USED{${GPU_A}} 10\n`);
    expect(sink.samples).toEqual([{ ref: REF_A, memoryUsedMiB: 10 }]);
    expect(sink.warnings).toEqual([{ location: 'line 1', message: 'DCGM_FI_DEV_GPU_UTIL value -4 is outside 0-100 %; value left out' }]);
  });

  it('leaves out a ratio above 1 and a utilization above 100 with the line, and reads NVML\'s sentinel as no value', async () => {
    const text = [
      `DCGM_FI_DEV_GPU_UTIL{${GPU_A}} 150`,
      `DCGM_FI_PROF_SM_ACTIVE{${GPU_A}} 1.13`,
      `DCGM_FI_DEV_MEM_COPY_UTIL{${GPU_A}} 4294967295`,
      `DCGM_FI_DEV_FB_USED{${GPU_A}} 10`,
    ].join('\n');
    const { sink } = await parseWith(dcgmExporter, `${text}\n`);
    expect(sink.samples).toEqual([{ ref: REF_A, memoryUsedMiB: 10 }]);
    expect(sink.warnings).toEqual([
      { location: 'line 1', message: 'DCGM_FI_DEV_GPU_UTIL value 150 is outside 0-100 %; value left out' },
      { location: 'line 2', message: 'DCGM_FI_PROF_SM_ACTIVE value 1.13 (113 %) is outside 0-100 %; value left out' },
    ]);
  });

  it('ignores other exporters\' metrics and DCGM fields it does not read, without warnings', async () => {
    const text = [
      '# TYPE node_load1 gauge',
      'node_load1 0.5',
      `DCGM_FI_DEV_GPU_TEMP{${GPU_A}} 74`,
      `DCGM_FI_DEV_GPU_UTIL{${GPU_A}} 3`,
    ].join('\n');
    const { sink } = await parseWith(dcgmExporter, text);
    expect(sink.samples).toEqual([{ ref: REF_A, utilizationPct: 3 }]);
    expect(sink.warnings).toEqual([]);
  });

  it('sends inventory but no sample for a GPU whose scrape has no field gpu-audit reads', async () => {
    const { sink, result } = await parseWith(dcgmExporter, `DCGM_FI_DEV_GPU_TEMP{${GPU_A}} 74\n`);
    expect(result.records).toBe(1);
    expect(sink.samples).toEqual([]);
    expect(sink.devices).toEqual([{ ref: REF_A, model: 'NVIDIA H100 80GB HBM3', driverVersion: '570.86.15' }]);
  });

  it('refuses an input without any DCGM series', async () => {
    const attempt = parseWith(dcgmExporter, '# TYPE node_load1 gauge\nnode_load1 0.5\n');
    await expect(attempt).rejects.toThrow(InputError);
    await expect(attempt).rejects.toThrow('no DCGM_FI_ series found: not a dcgm-exporter scrape');
  });
});
