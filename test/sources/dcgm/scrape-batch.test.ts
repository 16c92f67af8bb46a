import { describe, expect, it } from 'vitest';
import { dcgmExporter } from '../../../src/sources/formats/dcgm-exporter.js';
import { DcgmDevices } from '../../../src/sources/dcgm/devices.js';
import { readSeriesLabels } from '../../../src/sources/dcgm/labels.js';
import { fieldByMetricName } from '../../../src/sources/dcgm/fields.js';
import { readingSlot, ScrapeBatch } from '../../../src/sources/dcgm/scrape.js';
import { AssignmentRecordingSink, parseWith } from '../../helpers/parse.js';

const GPU_0 = 'gpu="0",UUID="GPU-0000",Hostname="n1"';
const GPU_1 = 'gpu="1",UUID="GPU-1111",Hostname="n1"';

describe('dcgm-exporter scrapes, series by series', () => {
  it('starts a new scrape where a series comes again, whether its labels were interned or not', async () => {
    // GPU 1's labels hold an escape, so they are scanned in full each time rather than interned.
    const escaped = String.raw`gpu="1",UUID="GPU-1111",Hostname="n1",pod="say \"hi\"",namespace="ns"`;
    const oneScrape = (a: number, b: number): string => `DCGM_FI_DEV_GPU_UTIL{${GPU_0}} ${a}\nDCGM_FI_DEV_GPU_UTIL{${escaped}} ${b}\n`;
    const { sink, result } = await parseWith(dcgmExporter, oneScrape(10, 20) + oneScrape(30, 40));
    expect(result.records).toBe(2);
    expect(sink.samples.map((sample) => [sample.ref.index, sample.utilizationPct])).toEqual([[0, 10], [1, 20], [0, 30], [1, 40]]);
  });

  it('tells a series apart from the same labels printed with a blank before the brace', async () => {
    // As printed, `M{...}` and `M {...}` are two texts, so the second is not the next scrape.
    const { result } = await parseWith(dcgmExporter, `DCGM_FI_DEV_GPU_UTIL{${GPU_0}} 1\nDCGM_FI_DEV_GPU_UTIL {${GPU_0}} 2\n`);
    expect(result.records).toBe(1);
  });

  it('sends in each scrape only the values that scrape had, not values left from the one before', async () => {
    const first = `DCGM_FI_DEV_GPU_UTIL{${GPU_0}} 50\nDCGM_FI_DEV_FB_USED{${GPU_0}} 1000\nDCGM_FI_DEV_GPU_UTIL{${GPU_1}} 60\n`;
    // The second scrape lacks GPU 0's FB_USED and names GPU 1 first.
    const second = `DCGM_FI_DEV_GPU_UTIL{${GPU_1}} 70\nDCGM_FI_DEV_GPU_UTIL{${GPU_0}} 80\n`;
    const { sink, result } = await parseWith(dcgmExporter, first + second);
    expect(result.records).toBe(2);
    expect(sink.samples.map(({ ref, utilizationPct, memoryUsedMiB }) => ({ index: ref.index, utilizationPct, memoryUsedMiB }))).toEqual([
      { index: 0, utilizationPct: 50, memoryUsedMiB: 1000 },
      { index: 1, utilizationPct: 60, memoryUsedMiB: undefined },
      { index: 1, utilizationPct: 70, memoryUsedMiB: undefined },
      { index: 0, utilizationPct: 80, memoryUsedMiB: undefined },
    ]);
  });

  it('keeps one device object per GPU, the same in every scrape', async () => {
    const line = (value: number): string => `DCGM_FI_DEV_GPU_UTIL{${GPU_0}} ${value}\n`;
    const { sink } = await parseWith(dcgmExporter, line(1) + line(2) + line(3));
    expect(sink.samples).toHaveLength(3);
    expect(sink.samples[1]!.ref).toBe(sink.samples[0]!.ref);
    expect(sink.samples[2]!.ref).toBe(sink.samples[0]!.ref);
  });

  it('fills a device\'s model from a later series of the same scrape with other labels', async () => {
    // The first series lacks modelName; a pod-labelled series of the same GPU carries it.
    const text = `DCGM_FI_DEV_GPU_UTIL{${GPU_0}} 5\nDCGM_FI_DEV_FB_USED{${GPU_0},modelName="NVIDIA L4",exported_pod="p",exported_namespace="ns"} 100\n`;
    const { sink } = await parseWith(dcgmExporter, text);
    expect(sink.devices.at(-1)).toMatchObject({ model: 'NVIDIA L4' });
    expect(sink.assignments).toEqual([{ ref: sink.samples[0]!.ref, namespace: 'ns', pod: 'p' }]);
  });

  it('sends one assignment per pod and scrape, however many series and label sets name the pod', async () => {
    // GPU 0 is shared by pods a and b; pod a's labels come in two orders (two label sets), and
    // pod a comes back after b. Each scrape: a, then b, in order of first appearance.
    const podA = 'pod="a",namespace="ns"';
    const podAReordered = 'namespace="ns",pod="a"';
    const podB = 'pod="b",namespace="ns"';
    const scrape = (time: number): string =>
      [podA, podB, podAReordered, podA].map((pod, line) => `DCGM_FI_DEV_${line % 2 === 0 ? 'GPU_UTIL' : 'FB_USED'}{${GPU_0},${pod}} ${line} ${time}\n`).join('');
    const { sink, result } = await parseWith(dcgmExporter, scrape(1000) + scrape(2000));
    expect(result.records).toBe(2);
    expect(sink.assignments.map(({ time, pod }) => [time, pod])).toEqual([[1000, 'a'], [1000, 'b'], [2000, 'a'], [2000, 'b']]);
  });

  it('fills a device from another series without changing the objects its series share', () => {
    // The device object of a label set serves every scrape: a gap filled in one scrape must
    // not stay in it for the next.
    const bare = readSeriesLabels(new Map([['gpu', '0'], ['UUID', 'GPU-0000']]), 'n1')!;
    const described = readSeriesLabels(new Map([['gpu', '0'], ['UUID', 'GPU-0000'], ['modelName', 'NVIDIA L4']]), 'n1')!;
    const sink = new AssignmentRecordingSink();
    const devices = new DcgmDevices(sink);
    const batch = new ScrapeBatch();
    const utilization = readingSlot(fieldByMetricName('DCGM_FI_DEV_GPU_UTIL')!);
    batch.add(bare, utilization, 10, 0);
    batch.add(described, utilization, 10, 1);
    batch.flush(1000, devices, sink);
    batch.add(bare, utilization, 20, 0);
    batch.flush(2000, devices, sink);
    expect(bare.device.model).toBeUndefined();
    expect(sink.devices).toEqual([{ ref: { host: 'n1', uuid: 'GPU-0000', index: 0 }, model: 'NVIDIA L4' }]);
    expect(sink.samples.map(({ time, utilizationPct }) => [time, utilizationPct])).toEqual([[1000, 10], [2000, 20]]);
  });
});
