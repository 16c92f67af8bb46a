/**
 * Every real `nvidia-smi -q -x` capture of the corpus, parsed as gpu-audit reads it.
 *
 * Two kinds of expectation: for every file, values pulled out of the file with plain
 * regular expressions (independent of the parser); for five files chosen for their
 * quirks, every field typed by hand from the file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceRef } from '../../src/model/observations.js';
import { nvidiaSmiXml } from '../../src/sources/formats/nvidia-smi-xml.js';
import type { SourceContext } from '../../src/sources/types.js';
import { corpusFiles, corpusPath } from '../helpers/corpus.js';
import { chunked, RecordingSink } from '../helpers/sink.js';

const FOLDER = 'nvidia-smi-xml';
const HOST = 'corpus-host';

async function parseFile(file: string): Promise<{ sink: RecordingSink; records: number }> {
  const context: SourceContext = { ref: path.basename(file), host: HOST, timeZone: 'UTC' };
  const sink = new RecordingSink();
  // An odd chunk size, so that boundaries fall inside tags and values.
  const { records } = await nvidiaSmiXml.parse(chunked(readFileSync(file, 'utf8'), [977]), context, sink);
  return { sink, records };
}

/** What a file says about one GPU, read with regular expressions only. */
interface GpuInFile {
  busId: string;
  model: string;
  memoryTotalMiB: number | undefined;
  memoryUsedMiB: number | undefined;
  utilizationPct: number | undefined;
  migDeviceCount: number;
  /** undefined where the file has no <processes> element. */
  processes: { pid: number; usedMemoryMiB: number | undefined }[] | undefined;
}

const numberOrNothing = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));

function gpusInFile(text: string): GpuInFile[] {
  return text.split('<gpu id="').slice(1).map((block) => {
    const gpuText = block.slice(0, block.indexOf('</gpu>'));
    // MIG devices carry their own fb_memory_usage before the GPU's.
    const ownText = gpuText.replace(/<mig_devices>[\s\S]*?<\/mig_devices>/, '');
    const framebuffer = /<fb_memory_usage>([\s\S]*?)<\/fb_memory_usage>/.exec(ownText)?.[1] ?? '';
    const processList = /<processes>([\s\S]*?)<\/processes>|<processes \/>/.exec(ownText);
    return {
      busId: /^([^"]+)"/.exec(gpuText)![1]!,
      model: /<product_name>([^<]*)<\/product_name>/.exec(ownText)![1]!,
      memoryTotalMiB: numberOrNothing(/<total>(\d+) MiB<\/total>/.exec(framebuffer)?.[1]),
      memoryUsedMiB: numberOrNothing(/<used>(\d+) MiB<\/used>/.exec(framebuffer)?.[1]),
      utilizationPct: numberOrNothing(/<gpu_util>(\d+) %<\/gpu_util>/.exec(ownText)?.[1]),
      migDeviceCount: (gpuText.match(/<mig_device>/g) ?? []).length,
      processes: processList === null ? undefined : [...(processList[1] ?? '').matchAll(/<process_info>([\s\S]*?)<\/process_info>/g)].map(([, info]) => ({
        pid: Number(/<pid>(\d+)<\/pid>/.exec(info!)![1]),
        usedMemoryMiB: numberOrNothing(/<used_memory>(\d+) MiB<\/used_memory>/.exec(info!)?.[1]),
      })),
    };
  });
}

const isWholeGpu = (ref: DeviceRef): boolean => ref.gpuInstanceId === undefined;

describe('nvidia-smi XML conformance: every corpus file', () => {
  const files = corpusFiles(FOLDER, (name) => name.endsWith('.xml'));

  it('covers the 24 captures of the corpus', () => {
    expect(files).toHaveLength(24);
  });

  it.each(files.map((file) => [path.basename(file), file]))('%s: detected, and read without warnings', async (_name, file) => {
    expect(nvidiaSmiXml.detect(readFileSync(file, 'utf8').slice(0, 64 * 1024))).toBe(true);
    const { sink, records } = await parseFile(file);
    expect(records).toBe(1);
    expect(sink.warnings).toEqual([]);
  });

  it.each(files.map((file) => [path.basename(file), file]))('%s: GPUs, memory, utilization and processes match the file', async (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const expected = gpusInFile(text);
    const { sink } = await parseFile(file);

    expect(sink.devices.filter((device) => isWholeGpu(device.ref))).toHaveLength((text.match(/<gpu id=/g) ?? []).length);
    for (const gpu of expected) {
      const onThisGpu = (ref: DeviceRef): boolean => ref.pciBusId === gpu.busId.toUpperCase();
      const device = sink.devices.find((candidate) => onThisGpu(candidate.ref) && isWholeGpu(candidate.ref));
      const sample = sink.samples.find((candidate) => onThisGpu(candidate.ref) && isWholeGpu(candidate.ref));
      expect(device?.model).toBe(gpu.model);
      expect(device?.memoryTotalMiB).toBe(gpu.memoryTotalMiB);
      expect(sample?.memoryTotalMiB).toBe(gpu.memoryTotalMiB);
      expect(sample?.memoryUsedMiB).toBe(gpu.memoryUsedMiB);
      expect(sample?.utilizationPct).toBe(gpu.utilizationPct);
      expect(sink.devices.filter((candidate) => onThisGpu(candidate.ref) && !isWholeGpu(candidate.ref))).toHaveLength(gpu.migDeviceCount);
      const processes = sink.processes.filter((process) => onThisGpu(process.ref)).map(({ pid, usedMemoryMiB }) => ({ pid, usedMemoryMiB }));
      expect(processes).toEqual(gpu.processes ?? []);
      if (gpu.processes === undefined) expect(sample).not.toHaveProperty('computeProcessCount');
    }
  });
});

describe('nvidia-smi XML conformance: hand-checked files', () => {
  it('netdata-a100-sxm4-mig.xml: A100-SXM4-40GB with two 3g.20gb MIG devices, GPU utilization N/A', async () => {
    const { sink } = await parseFile(corpusPath(FOLDER, 'netdata-a100-sxm4-mig.xml'));
    const gpuRef = { host: HOST, uuid: 'GPU-27b94a00-ed54-5c24-b1fd-1054085de32a', pciBusId: '00000000:00:04.0', index: 0 /* attached_gpus 1, one <gpu>: position is the index */ };
    const instance1 = { ...gpuRef, gpuInstanceId: 1, computeInstanceId: 0 };
    const instance2 = { ...gpuRef, gpuInstanceId: 2, computeInstanceId: 0 };
    const time = Date.UTC(2023, 0, 27, 11, 32, 31); // Fri Jan 27 11:32:31 2023
    expect(sink.devices).toEqual([
      { ref: gpuRef, model: 'NVIDIA A100-SXM4-40GB', memoryTotalMiB: 40960, migMode: 'enabled', pciDeviceId: '20B010DE', driverVersion: '510.47.03', architecture: 'Ampere', pcieLinkMaxGeneration: 4, pcieLinkMaxWidth: 16 },
      { ref: instance1, model: 'NVIDIA A100-SXM4-40GB', memoryTotalMiB: 19968, multiprocessorCount: 42 },
      { ref: instance2, model: 'NVIDIA A100-SXM4-40GB', memoryTotalMiB: 19968, multiprocessorCount: 42 },
    ]);
    expect(sink.samples).toEqual([
      // gpu_util and memory_util read N/A under MIG; power from power_readings (driver 510).
      { ref: gpuRef, time, memoryUsedMiB: 38, memoryTotalMiB: 40960, powerW: 66.92, pcieRxKiBps: 0, pcieTxKiBps: 0, computeProcessCount: 0 },
      { ref: instance1, time, memoryUsedMiB: 19, memoryTotalMiB: 19968, computeProcessCount: 0 },
      { ref: instance2, time, memoryUsedMiB: 19, memoryTotalMiB: 19968, computeProcessCount: 0 },
    ]);
    expect(sink.processes).toEqual([]);
  });

  it('telegraf-a100-sxm4-v12.xml: A100-SXM4-80GB (attached_gpus 4, one <gpu> kept) with four 1g.20gb MIG devices', async () => {
    const { sink } = await parseFile(corpusPath(FOLDER, 'telegraf-a100-sxm4-v12.xml'));
    const gpuRef = { host: HOST, uuid: 'GPU-513536b6-7d19-9063-b049-1e69664bb298', pciBusId: '00000000:01:00.0' };
    const time = Date.UTC(2023, 7, 4, 11, 44, 30); // Fri Aug  4 11:44:30 2023
    const instances = [3, 4, 5, 6].map((gpuInstanceId) => ({ ...gpuRef, gpuInstanceId, computeInstanceId: 0 }));
    expect(sink.devices).toEqual([
      { ref: gpuRef, model: 'NVIDIA A100-SXM4-80GB', memoryTotalMiB: 81920, migMode: 'enabled', pciDeviceId: '20B210DE', driverVersion: '535.54.03', architecture: 'Ampere', pcieLinkMaxGeneration: 4, pcieLinkMaxWidth: 16 },
      ...instances.map((ref) => ({ ref, model: 'NVIDIA A100-SXM4-80GB', memoryTotalMiB: 19968, multiprocessorCount: 14 })),
    ]);
    expect(sink.samples).toEqual([
      // Power from gpu_power_readings (driver 535); module_power_readings is N/A.
      { ref: gpuRef, time, memoryUsedMiB: 50, memoryTotalMiB: 81920, powerW: 67.03, pcieRxKiBps: 0, pcieTxKiBps: 4000, computeProcessCount: 0 },
      ...instances.map((ref) => ({ ref, time, memoryUsedMiB: 12, memoryTotalMiB: 19968, computeProcessCount: 0 })),
    ]);
    expect(sink.processes).toEqual([]);
  });

  it('netdata-rtx-2080-win.xml: Windows (WDDM), 26 C+G processes whose memory is N/A', async () => {
    const { sink } = await parseFile(corpusPath(FOLDER, 'netdata-rtx-2080-win.xml'));
    const ref = { host: HOST, uuid: 'GPU-fbd55ed4-1eec-4423-0a47-ad594b4333e3', pciBusId: '00000000:0A:00.0', index: 0 /* attached_gpus 1, one <gpu>: position is the index */ };
    const time = Date.UTC(2022, 8, 20, 14, 7, 39); // Tue Sep 20 14:07:39 2022
    expect(sink.devices).toEqual([
      // current_mig is N/A: no migMode.
      { ref, model: 'NVIDIA GeForce RTX 2080', memoryTotalMiB: 8192, pciDeviceId: '1E8710DE', driverVersion: '516.59', architecture: 'Turing', pcieLinkMaxGeneration: 3, pcieLinkMaxWidth: 16 },
    ]);
    expect(sink.samples).toEqual([
      { ref, time, utilizationPct: 2, memoryUtilizationPct: 7, memoryUsedMiB: 862, memoryTotalMiB: 8192, powerW: 14.5, pcieRxKiBps: 91000, pcieTxKiBps: 13000, computeProcessCount: 26 },
    ]);
    const processes: [number, string][] = [
      [7724, 'C:\\Program Files\\WindowsApps\\Microsoft.YourPhone_1.22062.543.0_x64__8wekyb3d8bbwe\\PhoneExperienceHost.exe'],
      [10808, ''],
      [11556, 'C:\\Windows\\SystemApps\\ShellExperienceHost_cw5n1h2txyewy\\ShellExperienceHost.exe'],
      [12452, 'C:\\Program Files\\WindowsApps\\Microsoft.SkypeApp_15.88.3401.0_x86__kzf8qxf38zg5c\\Skype\\Skype.exe'],
      [12636, ''],
      [13120, ''],
      [14296, 'C:\\Windows\\explorer.exe'],
      [16508, 'C:\\Program Files\\WindowsApps\\Microsoft.549981C3F5F10_4.2204.13303.0_x64__8wekyb3d8bbwe\\Cortana.exe'],
      [16592, 'C:\\ProgramData\\Logishrd\\LogiOptions\\Software\\Current\\LogiOptionsMgr.exe'],
      [20920, 'C:\\Windows\\SystemApps\\Microsoft.LockApp_cw5n1h2txyewy\\LockApp.exe'],
      [21004, 'C:\\Program Files\\WindowsApps\\Microsoft.Windows.Photos_2022.31070.26005.0_x64__8wekyb3d8bbwe\\Microsoft.Photos.exe'],
      [21036, 'C:\\Program Files (x86)\\Garmin\\Express\\CefSharp.BrowserSubprocess.exe'],
      [21048, 'C:\\Program Files\\WindowsApps\\91750D7E.Slack_4.28.171.0_x64__8she8kybcnzg4\\app\\Slack.exe'],
      [21104, 'C:\\Windows\\SystemApps\\MicrosoftWindows.Client.CBS_cw5n1h2txyewy\\TextInputHost.exe'],
      [21292, 'C:\\Program Files\\WindowsApps\\Microsoft.ZuneVideo_10.22041.10091.0_x64__8wekyb3d8bbwe\\Video.UI.exe'],
      [21472, 'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe'],
      [21852, 'C:\\ProgramData\\Logishrd\\LogiOptions\\Software\\Current\\LogiOverlay.exe'],
      [22600, ''],
      [23652, 'C:\\Program Files\\WindowsApps\\microsoft.windowscommunicationsapps_16005.14326.20970.0_x64__8wekyb3d8bbwe\\HxOutlook.exe'],
      [25436, 'C:\\Windows\\SystemApps\\MicrosoftWindows.Client.CBS_cw5n1h2txyewy\\SearchHost.exe'],
      [25520, ''],
      [25696, 'C:\\Users\\Vlad\\AppData\\Local\\Viber\\Viber.exe'],
      [26972, 'C:\\Windows\\SystemApps\\Microsoft.Windows.StartMenuExperienceHost_cw5n1h2txyewy\\StartMenuExperienceHost.exe'],
      [27148, 'C:\\Program Files\\WindowsApps\\Microsoft.Office.OneNote_16001.14326.21090.0_x64__8wekyb3d8bbwe\\onenoteim.exe'],
      [27628, 'C:\\Program Files\\WindowsApps\\49297T.Partl.ClockOut_2.9.9.0_x64__jr9bq2af9farr\\WorkingHours.exe'],
      [30212, 'C:\\Program Files (x86)\\Microsoft\\EdgeWebView\\Application\\105.0.1343.42\\msedgewebview2.exe'],
    ];
    // used_memory is N/A for every process under WDDM: no usedMemoryMiB, and never 0.
    expect(sink.processes).toEqual(processes.map(([pid, name]) => ({ ref, time, pid, name, type: 'C+G' })));
  });

  it('telegraf-gtx-1070-ti.xml: a cut-down v10 excerpt without timestamp, driver or process list', async () => {
    const { sink } = await parseFile(corpusPath(FOLDER, 'telegraf-gtx-1070-ti.xml'));
    const ref = { host: HOST, uuid: 'GPU-f9ba66fc-a7f5-94c5-da19-019ef2f9c665', pciBusId: '00000000:01:00.0' /* no attached_gpus: index unknown */ };
    expect(sink.devices).toEqual([{ ref, model: 'GeForce GTX 1070 Ti', memoryTotalMiB: 4096 }]);
    // power_draw is N/A; no <pci> throughput, no <processes>: those figures are unknown, not 0.
    expect(sink.samples).toEqual([{ ref, utilizationPct: 0, memoryUtilizationPct: 0, memoryUsedMiB: 42, memoryTotalMiB: 4096 }]);
    expect(sink.processes).toEqual([]);
  });

  it('telegraf-gtx-1660-ti.xml: driver 418 without DOCTYPE or product_architecture, an engineering board name', async () => {
    const { sink } = await parseFile(corpusPath(FOLDER, 'telegraf-gtx-1660-ti.xml'));
    const ref = { host: HOST, uuid: 'GPU-304a277d-3545-63b8-3a36-dfde3c992989', pciBusId: '00000000:43:00.0', index: 0 /* attached_gpus 1, one <gpu>: position is the index */ };
    const time = Date.UTC(2019, 2, 29, 19, 19, 44); // Fri Mar 29 19:19:44 2019
    expect(sink.devices).toEqual([{ ref, model: 'Graphics Device', memoryTotalMiB: 5912, pciDeviceId: '218410DE', driverVersion: '418.43', pcieLinkMaxGeneration: 3, pcieLinkMaxWidth: 16 }]);
    expect(sink.samples).toEqual([
      { ref, time, utilizationPct: 0, memoryUtilizationPct: 1, memoryUsedMiB: 0, memoryTotalMiB: 5912, powerW: 8.93, pcieRxKiBps: 0, pcieTxKiBps: 0, computeProcessCount: 0 },
    ]);
    expect(sink.processes).toEqual([]);
  });
});
