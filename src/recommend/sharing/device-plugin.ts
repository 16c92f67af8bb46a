/**
 * Sharing configs as the NVIDIA device plugin applies them (k8s-device-plugin, api/config/v1):
 * a config is named, held in a ConfigMap, and selected per node by the label
 * `nvidia.com/device-plugin.config=<name>`; it replicates every GPU of that node (the plugin
 * ignores per-device `devices` and `rename`: sharing is node-wide). With `renameByDefault: true`
 * the node advertises `nvidia.com/gpu.shared` only, so a pod that asks for a whole
 * `nvidia.com/gpu` cannot land on a shared node by mistake; `failRequestsGreaterThanOne: true`
 * refuses a pod that asks for more than one replica (which would not get more of the GPU).
 *
 * The reader mirrors the plugin's: `version: v1`; `sharing.timeSlicing` or `sharing.mps` (not
 * both); each with `resources` (at least one), each resource a `name` under `nvidia.com/` that
 * is a DNS subdomain of at most 63 characters in all, `replicas` >= 2 and `devices` `all`, a
 * count > 0 or a list of indices or UUIDs; MPS only for `nvidia.com/gpu`. Unlike the plugin,
 * it refuses unknown keys: a misspelt key there is silently ignored.
 */
import { parse, stringify } from 'yaml';

export type SharingMode = 'time-slicing' | 'mps';

export const SHARED_RESOURCE = 'nvidia.com/gpu.shared';
const GPU_RESOURCE = 'nvidia.com/gpu';
const MAX_RESOURCE_NAME = 63;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/u;

/** The config's name, which is also the node label's value: `gpu-audit-time-slicing-2`. */
export function devicePluginConfigName(mode: SharingMode, replicas: number): string {
  return `gpu-audit-${mode}-${replicas}`;
}

/** The plugin config of one sharing mode with `replicas` per GPU. */
export function devicePluginConfig(mode: SharingMode, replicas: number): string {
  const replicated = { renameByDefault: true, failRequestsGreaterThanOne: true, resources: [{ name: GPU_RESOURCE, replicas }] };
  return stringify({ version: 'v1', sharing: mode === 'mps' ? { mps: replicated } : { timeSlicing: replicated } });
}

/**
 * A ConfigMap of named plugin configs, for the plugin's `config.name` (Helm) or the GPU Operator's
 * `devicePlugin.config.name`; nodes pick one with the label.
 */
export function devicePluginConfigMap(configs: readonly { mode: SharingMode; replicas: number }[]): string {
  const data = Object.fromEntries(configs.map(({ mode, replicas }) => [devicePluginConfigName(mode, replicas), devicePluginConfig(mode, replicas)]));
  return stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gpu-audit-device-plugin-configs' }, data });
}

export type DevicePluginVerdict =
  | { ok: true; mode: SharingMode | 'none'; resources: { name: string; replicas: number; advertisedAs: string }[] }
  | { ok: false; reason: string };

type Record_ = Record<string, unknown>;

const isRecord = (value: unknown): value is Record_ => typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKey(value: Record_, allowed: readonly string[], where: string): string | undefined {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  return extra === undefined ? undefined : `${where}: unknown key ${extra}`;
}

function resourceName(raw: unknown, where: string): string | { reason: string } {
  if (typeof raw !== 'string' || raw === '') return { reason: `${where}: no resource name specified` };
  const full = raw.startsWith('nvidia.com/') ? raw : `nvidia.com/${raw}`;
  if (full.length > MAX_RESOURCE_NAME) return { reason: `${where}: fully-qualified resource name must be ${MAX_RESOURCE_NAME} characters or less: ${full}` };
  const name = full.slice('nvidia.com/'.length);
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) return { reason: `${where}: incorrect format for resource name '${full}'` };
  return full;
}

function devicesError(raw: unknown, where: string): string | undefined {
  if (raw === undefined || raw === 'all') return undefined;
  if (typeof raw === 'string') return `${where}: devices set as '${raw}' but the only valid string input is 'all'`;
  if (typeof raw === 'number') return Number.isInteger(raw) && raw > 0 ? undefined : `${where}: devices set as '${raw}' but a count of devices must be > 0`;
  if (Array.isArray(raw)) {
    const bad = raw.find((item) => !(typeof item === 'number' ? Number.isInteger(item) && item >= 0 : typeof item === 'string' && /^(\d+(:\d+)?|(GPU|MIG)-[0-9a-fA-F-]+)$/u.test(item)));
    return bad === undefined ? undefined : `${where}: unsupported type for device in devices list: ${String(bad)}`;
  }
  return `${where}: unrecognized type for devices spec`;
}

function replicated(value: unknown, where: string, mode: SharingMode): DevicePluginVerdict {
  if (!isRecord(value)) return { ok: false, reason: `${where}: expected a mapping` };
  const extra = unknownKey(value, ['renameByDefault', 'failRequestsGreaterThanOne', 'resources'], where);
  if (extra !== undefined) return { ok: false, reason: extra };
  for (const flag of ['renameByDefault', 'failRequestsGreaterThanOne'] as const) {
    if (value[flag] !== undefined && typeof value[flag] !== 'boolean') return { ok: false, reason: `${where}.${flag}: expected true or false` };
  }
  if (!Array.isArray(value.resources) || value.resources.length === 0) return { ok: false, reason: `${where}: no resources specified` };
  const resources: { name: string; replicas: number; advertisedAs: string }[] = [];
  for (const [index, item] of value.resources.entries()) {
    const at = `${where}.resources[${index}]`;
    if (!isRecord(item)) return { ok: false, reason: `${at}: expected a mapping` };
    const extraKey = unknownKey(item, ['name', 'rename', 'devices', 'replicas'], at);
    if (extraKey !== undefined) return { ok: false, reason: extraKey };
    const name = resourceName(item.name, at);
    if (typeof name !== 'string') return { ok: false, reason: name.reason };
    const devices = devicesError(item.devices, at);
    if (devices !== undefined) return { ok: false, reason: devices };
    if (item.replicas === undefined) return { ok: false, reason: `${at}: no replicas specified` };
    if (typeof item.replicas !== 'number' || !Number.isInteger(item.replicas) || item.replicas < 2) return { ok: false, reason: `${at}: number of replicas must be >= 2` };
    if (mode === 'mps' && name !== GPU_RESOURCE) return { ok: false, reason: `${at}: MPS supports only ${GPU_RESOURCE} (full GPUs)` };
    resources.push({ name, replicas: item.replicas, advertisedAs: value.renameByDefault === true ? `${name}.shared` : name });
  }
  return { ok: true, mode, resources };
}

/** Reads a plugin config (YAML or JSON) by the plugin's rules. */
export function validateDevicePluginConfig(text: string): DevicePluginVerdict {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    return { ok: false, reason: `not YAML: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isRecord(document)) return { ok: false, reason: 'expected a mapping' };
  const extra = unknownKey(document, ['version', 'flags', 'resources', 'sharing', 'imex'], 'config');
  if (extra !== undefined) return { ok: false, reason: extra };
  if (document.version !== undefined && document.version !== 'v1') return { ok: false, reason: `unknown version: ${String(document.version)}` };
  const sharing = document.sharing;
  if (sharing === undefined) return { ok: true, mode: 'none', resources: [] };
  if (!isRecord(sharing)) return { ok: false, reason: 'sharing: expected a mapping' };
  const extraSharing = unknownKey(sharing, ['timeSlicing', 'mps'], 'sharing');
  if (extraSharing !== undefined) return { ok: false, reason: extraSharing };
  if (sharing.timeSlicing !== undefined && sharing.mps !== undefined) return { ok: false, reason: 'sharing: time-slicing and MPS are mutually exclusive' };
  if (sharing.mps !== undefined) return replicated(sharing.mps, 'sharing.mps', 'mps');
  if (sharing.timeSlicing !== undefined) return replicated(sharing.timeSlicing, 'sharing.timeSlicing', 'time-slicing');
  return { ok: true, mode: 'none', resources: [] };
}
