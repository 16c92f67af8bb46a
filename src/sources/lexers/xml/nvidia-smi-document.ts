/**
 * Maps one parsed `<nvidia_smi_log>` document to observations: per `<gpu>` a device
 * and a sample, per MIG device the same, and one process sample per `<process_info>`.
 *
 * Element names differ across drivers (reference/nvidia-smi-xml.md section 3), so each
 * figure lists the places it may be found, newest knowledge last; every element is optional.
 */
import {
  allInDomain, clearOutOfDomain, type DeviceInfo, type DeviceRef, type GpuSample, type MigMode, type ObservationSink, type ProcessSample, type ProcessType,
} from '../../../model/index.js';
import { parseLocalTimestamp } from '../timestamps.js';
import type { ReadPlan } from './content-capture.js';
import { attributeOf, child, children, descend, textOf, type XmlNode } from './tree.js';
import { normalisePciBusId } from '../text/values.js';
import { isPlaceholder, QUANTITIES, readQuantity, type Quantity } from './values.js';

/** A leaf whose text the mapping reads. */
const VALUE: ReadPlan = {};
const FRAMEBUFFER: ReadPlan = { total: VALUE, used: VALUE };

/**
 * Every element the mapper below reads, from the document down (attributes of kept
 * elements come along). The scanner keeps these and nothing else, so a path read below
 * must be listed here: the equivalence tests against the full parser fail otherwise.
 */
export const NVIDIA_SMI_READ_PLAN: ReadPlan = {
  nvidia_smi_log: {
    timestamp: VALUE,
    driver_version: VALUE,
    attached_gpus: VALUE,
    gpu: {
      product_name: VALUE,
      product_architecture: VALUE,
      uuid: VALUE,
      mig_mode: { current_mig: VALUE },
      pci: {
        pci_device_id: VALUE,
        rx_util: VALUE,
        tx_util: VALUE,
        pci_gpu_link_info: { pcie_gen: { max_link_gen: VALUE }, link_widths: { max_link_width: VALUE } },
      },
      fb_memory_usage: FRAMEBUFFER,
      utilization: { gpu_util: VALUE, memory_util: VALUE },
      power_readings: { power_draw: VALUE },
      gpu_power_readings: { power_draw: VALUE, average_power_draw: VALUE, instant_power_draw: VALUE },
      mig_devices: {
        mig_device: {
          gpu_instance_id: VALUE,
          compute_instance_id: VALUE,
          device_attributes: { shared: { multiprocessor_count: VALUE } },
          fb_memory_usage: FRAMEBUFFER,
        },
      },
      processes: {
        process_info: {
          pid: VALUE, type: VALUE, process_name: VALUE, used_memory: VALUE, gpu_instance_id: VALUE, compute_instance_id: VALUE,
        },
      },
    },
  },
};

/** Where the board's power draw is printed, by driver era; the first that holds a value wins. */
const POWER_DRAW_PATHS = [
  ['power_readings', 'power_draw'], // up to R525
  ['gpu_power_readings', 'power_draw'], // R535
  ['gpu_power_readings', 'average_power_draw'], // R570 and later: power_draw is gone
  ['gpu_power_readings', 'instant_power_draw'],
] as const;

const MIG_MODES: ReadonlyMap<string, MigMode> = new Map([['Enabled', 'enabled'], ['Disabled', 'disabled']]);
const PROCESS_TYPES: ReadonlyMap<string, ProcessType> = new Map([['C', 'C'], ['G', 'G'], ['C+G', 'C+G']]);
const COMPUTE_TYPES: ReadonlySet<ProcessType> = new Set(['C', 'C+G']);

/** What the mapping reports problems to: once per distinct message, with the document it was first seen in. */
export type ProblemReporter = (document: number, message: string) => void;

interface ProcessFacts {
  pid: number;
  name: string;
  type: ProcessType | undefined;
  usedMemoryMiB: number | undefined;
  gpuInstanceId: number | undefined;
  computeInstanceId: number | undefined;
}

/**
 * Drops keys whose value is undefined. Sinks merge device facts across documents
 * ("later values fill gaps"); an explicit undefined must not erase a known value.
 */
function definedOnly<T extends object>(value: T): T {
  // A copy rather than `delete`, which leaves V8 objects slow to read for everyone after.
  const defined: Partial<T> = {};
  for (const key in value) if (value[key] !== undefined) defined[key] = value[key];
  return defined as T;
}

/** A present, non-placeholder text. */
function presentText(node: XmlNode | undefined): string | undefined {
  const text = textOf(node)?.trim();
  return text === undefined || isPlaceholder(text) ? undefined : text;
}

export class NvidiaSmiDocumentMapper {
  constructor(
    private readonly host: string,
    private readonly timeZone: string,
    private readonly sink: ObservationSink,
    private readonly report: ProblemReporter,
  ) {}

  map(root: XmlNode | undefined, document: number): void {
    const reader = new DocumentReader(document, this.report);
    const time = this.readTime(root, reader);
    const driverVersion = presentText(child(root, 'driver_version'));
    const gpus = children(root, 'gpu');
    // nvidia-smi lists GPUs in index order, so position is the index, but only when the document
    // holds all of them: `nvidia-smi -q -x -i 3` prints GPU 3 alone, at position 0.
    const attached = Number(presentText(child(root, 'attached_gpus')));
    const positionIsIndex = attached === gpus.length;
    gpus.forEach((gpu, position) => {
      this.mapGpu(gpu, position, { time, driverVersion, index: positionIsIndex ? position : undefined }, reader);
    });
  }

  private readTime(root: XmlNode | undefined, reader: DocumentReader): number | undefined {
    const text = presentText(child(root, 'timestamp'));
    if (text === undefined) return undefined;
    const time = parseLocalTimestamp(text, this.timeZone);
    if (time === undefined) reader.problem(`timestamp ${JSON.stringify(text)} is not understood (expected e.g. "Fri Aug  4 11:44:30 2023"); samples have no time`);
    return time;
  }

  private mapGpu(
    gpu: XmlNode,
    position: number,
    documentFacts: { time: number | undefined; driverVersion: string | undefined; index: number | undefined },
    reader: DocumentReader,
  ): void {
    const { time } = documentFacts;
    const busIdText = attributeOf(gpu, 'id');
    const pciBusId = busIdText === undefined ? undefined : normalisePciBusId(busIdText.trim());
    const uuid = presentText(child(gpu, 'uuid'));
    const label = `GPU ${pciBusId ?? uuid ?? `#${position + 1}`}`;
    if (busIdText !== undefined && pciBusId === undefined) reader.problem(`${label}: id ${JSON.stringify(busIdText)} is not a PCI bus id`);
    if (pciBusId === undefined && uuid === undefined) reader.problem(`${label}: has neither a PCI bus id nor a uuid; it cannot be told apart from other GPUs`);
    const ref: DeviceRef = definedOnly({ host: this.host, uuid, pciBusId, index: documentFacts.index });
    const at = (path: readonly string[]): ValueAt => ({ node: descend(gpu, path), where: () => `${label}: ${path.join('/')}` });

    const model = presentText(child(gpu, 'product_name'));
    const memoryTotalMiB = reader.number(at(['fb_memory_usage', 'total']), QUANTITIES.memoryMiB);
    const info: DeviceInfo = {
      ref,
      model,
      memoryTotalMiB,
      migMode: this.readMigMode(at(['mig_mode', 'current_mig']), reader),
      pciDeviceId: presentText(descend(gpu, ['pci', 'pci_device_id'])),
      driverVersion: documentFacts.driverVersion,
      architecture: presentText(child(gpu, 'product_architecture')),
      pcieLinkMaxGeneration: reader.number(at(['pci', 'pci_gpu_link_info', 'pcie_gen', 'max_link_gen']), QUANTITIES.count),
      pcieLinkMaxWidth: reader.number(at(['pci', 'pci_gpu_link_info', 'link_widths', 'max_link_width']), QUANTITIES.pcieLanes),
    };
    this.sink.device(definedOnly(info));

    const processes = this.readProcesses(gpu, label, reader);
    const sample: GpuSample = {
      ref,
      time,
      utilizationPct: reader.number(at(['utilization', 'gpu_util']), QUANTITIES.percent),
      memoryUtilizationPct: reader.number(at(['utilization', 'memory_util']), QUANTITIES.percent),
      memoryUsedMiB: reader.number(at(['fb_memory_usage', 'used']), QUANTITIES.memoryMiB),
      memoryTotalMiB,
      powerW: this.readPowerDraw(at, reader),
      pcieRxKiBps: reader.number(at(['pci', 'rx_util']), QUANTITIES.pcieKiBps),
      pcieTxKiBps: reader.number(at(['pci', 'tx_util']), QUANTITIES.pcieKiBps),
      computeProcessCount: processes?.filter(isCompute).length,
    };
    if (!allInDomain(sample)) clearOutOfDomain(sample, (message) => reader.problem(`${label}: ${message}`));
    this.sink.sample(definedOnly(sample));

    for (const migDevice of children(child(gpu, 'mig_devices'), 'mig_device')) {
      this.mapMigDevice(migDevice, { ref, label, model, time, processes }, reader);
    }
    for (const process of processes ?? []) {
      const processRef: DeviceRef = definedOnly({ ...ref, gpuInstanceId: process.gpuInstanceId, computeInstanceId: process.computeInstanceId });
      const processSample: ProcessSample = {
        ref: processRef, time, pid: process.pid, name: process.name, type: process.type, usedMemoryMiB: process.usedMemoryMiB,
      };
      this.sink.process(definedOnly(processSample));
    }
  }

  private readMigMode(value: ValueAt, reader: DocumentReader): MigMode | undefined {
    const text = presentText(value.node);
    if (text === undefined) return undefined;
    const mode = MIG_MODES.get(text);
    if (mode === undefined) reader.problem(`${value.where()}: ${JSON.stringify(text)} is not Enabled or Disabled`);
    return mode;
  }

  private readPowerDraw(at: (path: readonly string[]) => ValueAt, reader: DocumentReader): number | undefined {
    for (const path of POWER_DRAW_PATHS) {
      const watts = reader.number(at(path), QUANTITIES.watts);
      if (watts !== undefined) return watts;
    }
    return undefined;
  }

  /** Undefined when the document has no process list at all (cut-down output); [] for an empty one. */
  private readProcesses(gpu: XmlNode, label: string, reader: DocumentReader): ProcessFacts[] | undefined {
    const list = child(gpu, 'processes');
    if (list === undefined) return undefined;
    // An empty list prints as <processes /> or whitespace; any other bare text (N/A) means unknown.
    if (typeof list === 'string' && list.trim() !== '') return undefined;
    const processes: ProcessFacts[] = [];
    children(list, 'process_info').forEach((info, position) => {
      const where = (): string => `${label}: process_info ${position + 1}`;
      const at = (name: string): ValueAt => ({ node: child(info, name), where: () => `${where()}/${name}` });
      const pid = reader.number(at('pid'), QUANTITIES.count);
      if (pid === undefined) {
        reader.problem(`${where()}: has no pid; process skipped`);
        return;
      }
      processes.push({
        pid,
        name: textOf(child(info, 'process_name'))?.trim() ?? '',
        type: this.readProcessType(at('type'), reader),
        usedMemoryMiB: reader.number(at('used_memory'), QUANTITIES.memoryMiB),
        gpuInstanceId: reader.number(at('gpu_instance_id'), QUANTITIES.count),
        computeInstanceId: reader.number(at('compute_instance_id'), QUANTITIES.count),
      });
    });
    return processes;
  }

  private readProcessType(value: ValueAt, reader: DocumentReader): ProcessType | undefined {
    const text = presentText(value.node);
    if (text === undefined) return undefined;
    const type = PROCESS_TYPES.get(text);
    if (type === undefined) reader.problem(`${value.where()}: type ${JSON.stringify(text)} is not C, G or C+G`);
    return type;
  }

  private mapMigDevice(
    migDevice: XmlNode,
    parent: { ref: DeviceRef; label: string; model: string | undefined; time: number | undefined; processes: ProcessFacts[] | undefined },
    reader: DocumentReader,
  ): void {
    const at = (path: readonly string[]): ValueAt => ({ node: descend(migDevice, path), where: () => `${parent.label}: mig_device/${path.join('/')}` });
    const gpuInstanceId = reader.number(at(['gpu_instance_id']), QUANTITIES.count);
    if (gpuInstanceId === undefined) {
      reader.problem(`${parent.label}: a mig_device has no gpu_instance_id; it is skipped`);
      return;
    }
    const computeInstanceId = reader.number(at(['compute_instance_id']), QUANTITIES.count);
    const ref: DeviceRef = definedOnly({ ...parent.ref, gpuInstanceId, computeInstanceId });
    const memoryTotalMiB = reader.number(at(['fb_memory_usage', 'total']), QUANTITIES.memoryMiB);
    this.sink.device(definedOnly({
      ref,
      model: parent.model,
      memoryTotalMiB,
      multiprocessorCount: reader.number(at(['device_attributes', 'shared', 'multiprocessor_count']), QUANTITIES.count),
    }));
    // The parent's process list names the instance each process runs in.
    const inInstance = (process: ProcessFacts): boolean =>
      process.gpuInstanceId === gpuInstanceId
      && (process.computeInstanceId === undefined || computeInstanceId === undefined || process.computeInstanceId === computeInstanceId);
    // MIG devices print no utilization in XML: the sample carries memory and processes only.
    const sample: GpuSample = {
      ref,
      time: parent.time,
      memoryUsedMiB: reader.number(at(['fb_memory_usage', 'used']), QUANTITIES.memoryMiB),
      memoryTotalMiB,
      computeProcessCount: parent.processes?.filter((process) => isCompute(process) && inInstance(process)).length,
    };
    if (!allInDomain(sample)) clearOutOfDomain(sample, (message) => reader.problem(`${parent.label}: mig_device ${gpuInstanceId}: ${message}`));
    this.sink.sample(definedOnly(sample));
  }
}

function isCompute(process: ProcessFacts): boolean {
  return process.type !== undefined && COMPUTE_TYPES.has(process.type);
}

/** An element and how to name it in a message (built only when there is one to write). */
interface ValueAt {
  node: XmlNode | undefined;
  where: () => string;
}

/** Reads numbers for one document; an unreadable value is omitted and reported, never turned into 0. */
class DocumentReader {
  constructor(private readonly document: number, private readonly report: ProblemReporter) {}

  number(value: ValueAt, quantity: Quantity): number | undefined {
    if (value.node === undefined) return undefined;
    const text = textOf(value.node);
    if (text === undefined) {
      this.problem(`${value.where()}: expected a value but found child elements; value ignored`);
      return undefined;
    }
    const reading = readQuantity(text, quantity);
    if (reading.kind === 'invalid') this.problem(`${value.where()}: ${reading.reason}; value ignored`);
    return reading.kind === 'value' ? reading.value : undefined;
  }

  problem(message: string): void {
    this.report(this.document, message);
  }
}
