/**
 * `dcgmi discovery -l`: the GPUs DCGM sees, as a box table with one block per GPU. An
 * inventory, not a time series: it gives DeviceInfo and no samples.
 *
 *   8 GPUs found.
 *   +--------+----------------------------------------------------------------------+
 *   | GPU ID | Device Information                                                   |
 *   +--------+----------------------------------------------------------------------+
 *   | 0      | Name: NVIDIA H800                                                    |
 *   |        | PCI Bus ID: 00000000:18:00.0                                         |
 *   |        | Device UUID: GPU-34bf77d1-c686-6821-79a8-32d326c5039c                |
 *   +--------+----------------------------------------------------------------------+
 *   0 NvSwitches found.
 *
 * Newer DCGM prints `N GPUs found (Active).`, may add `Status: ...` lines and a
 * ` (last known)` suffix for GPUs it lost (dcgmi/Query.cpp). The NvSwitch, CPU and
 * ConnectX tables that follow are not GPUs and are not read.
 */
import { InputError } from '../../support/index.js';
import type { DeviceInfo, DeviceRef } from '../../model/index.js';
import type { ParseResult, SourceParser } from '../types.js';
import { forEachLine, leadingLines } from '../lexers/text/lines.js';
import { normalisePciBusId } from '../lexers/text/values.js';
import { WarningLimiter } from '../lexers/text/warnings.js';

const GPUS_FOUND = /^(\d+) GPUs? found(?: \((?:Active|All)\))?\.$/;
const LAST_KNOWN = / \(last known\)$/;
/** DCGM's string blank: older DCGM prints `Name: <<<NULL>>>` on some H100 systems (NVIDIA/DCGM#229). */
const STRING_BLANK = '<<<NULL>>>';
const GPU_ID = /^\d+$/;

interface GpuBlock {
  id: number;
  firstLine: number;
  model?: string;
  pciBusId?: string;
  uuid?: string;
  error?: string;
}

type InfoKey = 'model' | 'pciBusId' | 'uuid' | 'error';

/** The `Key: value` lines of a GPU's block that gpu-audit reads. */
const INFO_KEYS: ReadonlyMap<string, InfoKey> = new Map([
  ['Name', 'model'],
  ['PCI Bus ID', 'pciBusId'],
  ['Device UUID', 'uuid'],
  ['Error', 'error'],
]);

function infoValue(text: string): string | undefined {
  const value = text.replace(LAST_KNOWN, '').trim();
  return value === '' || value === STRING_BLANK ? undefined : value;
}

export const dcgmiDiscovery: SourceParser = {
  format: 'dcgmi-discovery',
  description: 'dcgmi discovery -l GPU list (inventory only)',
  detect(head) {
    const [first] = leadingLines(head, 1);
    return first !== undefined && GPUS_FOUND.test(first.trim());
  },
  async parse(chunks, context, sink): Promise<ParseResult> {
    const warnings = new WarningLimiter(sink);
    const { warn } = warnings;
    let announced: { count: number; line: number } | undefined;
    let inGpuTable = false;
    let tableDone = false;
    let block: GpuBlock | undefined;
    let gpus = 0;

    const endBlock = (): void => {
      if (block === undefined) return;
      const current = block;
      block = undefined;
      if (current.error !== undefined && current.uuid === undefined) {
        warn(`line ${current.firstLine}`, `GPU ${current.id}: dcgmi could not read it (${current.error}); skipped`);
        return;
      }
      const ref: DeviceRef = { host: context.host, index: current.id };
      if (current.uuid !== undefined) ref.uuid = current.uuid;
      if (current.pciBusId !== undefined) ref.pciBusId = current.pciBusId;
      const info: DeviceInfo = { ref };
      if (current.model !== undefined) info.model = current.model;
      sink.device(info);
      gpus += 1;
    };

    const lines = await forEachLine(chunks, context.ref, (raw, lineNumber) => {
      const line = raw.trim();
      if (tableDone || line === '') return;
      if (announced === undefined) {
        const found = GPUS_FOUND.exec(line);
        if (found !== null) announced = { count: Number(found[1]), line: lineNumber };
        return;
      }
      if (line.startsWith('+')) {
        inGpuTable = true;
        endBlock();
        return;
      }
      if (!line.startsWith('|')) {
        // `Note: Use -a flag ...` comes before the table; anything after it ends the GPU table.
        if (inGpuTable) {
          endBlock();
          tableDone = true;
        }
        return;
      }
      const [, idCell = '', infoCell = ''] = line.split('|').map((cell) => cell.trim());
      if (idCell === 'GPU ID') return;
      if (GPU_ID.test(idCell)) {
        endBlock();
        block = { id: Number(idCell), firstLine: lineNumber };
      }
      if (block === undefined) {
        warn(`line ${lineNumber}`, `skipped ${JSON.stringify(line)}: no GPU ID before it`);
        return;
      }
      const separator = infoCell.indexOf(': ');
      const key = separator === -1 ? undefined : INFO_KEYS.get(infoCell.slice(0, separator));
      if (key === undefined) return; // `Status: ...`, `Return: ...`
      const value = infoValue(infoCell.slice(separator + 2));
      if (value === undefined) return;
      if (key === 'pciBusId') {
        const busId = normalisePciBusId(value);
        if (busId === undefined) warn(`line ${lineNumber}`, `GPU ${block.id}: PCI bus id ${JSON.stringify(value)} not understood; left out`);
        else block.pciBusId = busId;
      } else {
        block[key] = value;
      }
    });
    endBlock();

    if (announced === undefined) {
      throw new InputError('no "N GPUs found." line: not dcgmi discovery -l output', { file: context.ref, location: `line ${lines}` });
    }
    if (announced.count !== gpus) {
      warn(`line ${announced.line}`, `dcgmi announced ${announced.count} GPUs, ${gpus} were read`);
    }
    warnings.finish(`line ${lines}`);
    return { records: gpus };
  },
};
