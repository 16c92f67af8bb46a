/**
 * `catalog list` and `catalog show` as a table, JSON or CSV. Every output names the catalog
 * and its as-of date. Figures per GPU come from the catalog's own lookups (src/catalog).
 */
import { Chalk } from 'chalk';
import {
  gpuHourPrice,
  gpuSpecByKey,
  instanceExtras,
  isFractionalGpu,
  migTableFor,
  usableVramGiB,
  UNKNOWN_GPU_KEY,
  type GpuHourPrice,
  type GpuSpecRecord,
  type InstanceFilter,
  type NotedValue,
} from '../catalog/index.js';
import type { InstanceCatalog, InstanceType, PricingModel } from '../model/index.js';
import { csvField } from './csv.js';
import { MISSING, formatNumber } from './format.js';
import { toDisplayText } from '../support/index.js';
import { cellWidth, fitColumnWidths, wrapWords } from './terminal-layout.js';
import { renderTerminalTable, tableWidth, type TerminalColumn } from './terminal-table.js';

export const CATALOG_FORMATS = ['table', 'json', 'csv'] as const;
export type CatalogFormat = (typeof CATALOG_FORMATS)[number];

/** Terminal tables are laid out for this many columns. */
const TABLE_WIDTH = 100;

// ---------------------------------------------------------------------------------------------
// Shared pieces of every format

interface CatalogLine {
  name: string;
  asOf: string;
  origin: InstanceCatalog['origin'];
  ageDays: number | null;
}

function catalogLine(catalog: InstanceCatalog): CatalogLine {
  return { name: catalog.name, asOf: catalog.asOf, origin: catalog.origin, ageDays: catalog.ageDays };
}

function describeCatalog(catalog: InstanceCatalog): string {
  const age = catalog.ageDays === null ? '' : `, ${formatNumber(catalog.ageDays, 0)} ${catalog.ageDays === 1 ? 'day' : 'days'} old`;
  const origin = catalog.origin === 'bundled' ? 'bundled snapshot' : `refreshed cache${age}`;
  return wrapWords(`Catalog ${catalog.name} (${origin}, as of ${catalog.asOf}); USD per instance-hour, Linux.`, TABLE_WIDTH).join('\n');
}

/** `8x h100-sxm-80gb`, `1/4 l4` for a fractional type, the catalog's own name for GPUs the table lacks. */
function gpuLabel(instance: InstanceType): string {
  const extras = instanceExtras(instance);
  const model = instance.gpuModelKey !== UNKNOWN_GPU_KEY ? instance.gpuModelKey : (extras.gpuCatalogKey ?? instance.gpuModelName);
  return `${gpuCountLabel(instance)} ${toDisplayText(model)}`;
}

function gpuCountLabel(instance: InstanceType): string {
  if (isFractionalGpu(instance)) {
    const denominator = 1 / instance.gpuPartitionSize;
    return Math.abs(denominator - Math.round(denominator)) < 1e-9 ? `1/${Math.round(denominator)}` : `${formatNumber(instance.gpuPartitionSize, 3)}x`;
  }
  return `${instance.gpuCount}x`;
}

/** What list and show print per instance in JSON; CSV flattens the same figures. */
function instanceView(instance: InstanceType, pricing: PricingModel): InstanceType & { pricePerGpuHour: (GpuHourPrice & { pricing: PricingModel }) | null } {
  const perGpu = gpuHourPrice(instance, pricing);
  return { ...instance, pricePerGpuHour: perGpu === null ? null : { ...perGpu, pricing } };
}

// ---------------------------------------------------------------------------------------------
// CSV

const CSV_COLUMNS = [
  'provider',
  'name',
  'region',
  'gpuModelKey',
  'gpuModelName',
  'gpuCount',
  'gpuPartitionSize',
  'vramPerGpuMiB',
  'vcpus',
  'memoryGiB',
  'networkGbps',
  'onDemandUsdPerHour',
  'spotUsdPerHour',
  'spotObservedAt',
  'reserved1yUsdPerHour',
  'reserved3yUsdPerHour',
  'savingsPlan1yUsdPerHour',
  'savingsPlan3yUsdPerHour',
  'pricing',
  'usdPerGpuHour',
  'perGpuBasis',
  'catalog',
  'catalogAsOf',
  'retiredOn',
] as const;

/** RFC 4180: header row, one row per instance; the catalog and its date are columns of every row. */
export function renderCsv(instances: readonly InstanceType[], catalog: InstanceCatalog, pricing: PricingModel): string {
  const rows = instances.map((instance) => {
    const perGpu = gpuHourPrice(instance, pricing);
    const cells: Record<(typeof CSV_COLUMNS)[number], string | number | null> = {
      provider: instance.provider,
      name: instance.name,
      region: instance.region,
      gpuModelKey: instance.gpuModelKey,
      gpuModelName: instance.gpuModelName,
      gpuCount: instance.gpuCount,
      gpuPartitionSize: instance.gpuPartitionSize,
      vramPerGpuMiB: instance.vramPerGpuMiB,
      vcpus: instance.vcpus,
      memoryGiB: instance.memoryGiB,
      networkGbps: instance.networkGbps,
      onDemandUsdPerHour: instance.prices.onDemand,
      spotUsdPerHour: instance.prices.spot,
      spotObservedAt: instance.prices.spotObservedAt ?? null,
      reserved1yUsdPerHour: instance.prices.reserved1y,
      reserved3yUsdPerHour: instance.prices.reserved3y,
      savingsPlan1yUsdPerHour: instance.prices.savingsPlan1y,
      savingsPlan3yUsdPerHour: instance.prices.savingsPlan3y,
      pricing,
      usdPerGpuHour: perGpu?.usdPerGpuHour ?? null,
      perGpuBasis: perGpu?.basis ?? null,
      catalog: catalog.name,
      catalogAsOf: catalog.asOf,
      retiredOn: instance.retiredOn ?? null,
    };
    return CSV_COLUMNS.map((column) => csvField(cells[column])).join(',');
  });
  return `${[CSV_COLUMNS.join(','), ...rows].join('\r\n')}\r\n`;
}

// ---------------------------------------------------------------------------------------------
// Table: list

interface Paint {
  heading: (text: string) => string;
  dim: (text: string) => string;
}

function paints(color: boolean): Paint {
  // Level 0 makes every paint the identity: no escape reaches a pipe or a file.
  const chalk = new Chalk({ level: color ? 1 : 0 });
  return { heading: chalk.bold, dim: chalk.dim };
}

/** A price as the source printed it (`0.2375`, `84.80`), at least cents. */
function exactMoney(value: number): string {
  return new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(value);
}

function money(value: number | null): string {
  if (value === null) return MISSING;
  return formatNumber(value, value < 10 ? 3 : 2);
}

const PRICING_SHORT: Readonly<Record<PricingModel, string>> = {
  'on-demand': 'on-demand',
  spot: 'spot',
  'reserved-1y': 'reserved 1y',
  'reserved-3y': 'reserved 3y',
};

interface ListColumn extends Omit<TerminalColumn, 'width'> {
  cell: (instance: InstanceType) => string;
  /** Text columns give up width (wrapping) when the table is too wide; figures never do. */
  minimum?: number;
}

/** VRAM/GPU in GiB; `~` marks the lower bound read from a marketed size (no MiB figure known). */
function vramCell(instance: InstanceType): string {
  const gib = usableVramGiB(instance);
  if (gib === null) return MISSING;
  return instance.vramPerGpuMiB === null ? `~${formatNumber(gib, 1)}` : formatNumber(gib, 1);
}

function perGpuCell(instance: InstanceType, pricing: PricingModel): string {
  const perGpu = gpuHourPrice(instance, pricing);
  if (perGpu === null) return MISSING;
  return `${money(perGpu.usdPerGpuHour)}${perGpu.basis === 'per-whole-gpu-equivalent' ? '*' : ''}`;
}

function listColumns(pricing: PricingModel): ListColumn[] {
  return [
    { header: 'Type', align: 'left', cell: (i) => `${toDisplayText(i.name)}${i.retiredOn === undefined ? '' : ` (retired ${i.retiredOn})`}`, minimum: 12 },
    { header: 'Region', align: 'left', cell: (i) => toDisplayText(i.region), minimum: 7 },
    { header: 'GPUs', align: 'left', cell: gpuLabel, minimum: 10 },
    { header: 'VRAM/GPU\nGiB', align: 'right', cell: vramCell },
    { header: 'vCPU', align: 'right', cell: (i) => formatNumber(i.vcpus, 0) },
    { header: '$/h\non-demand', align: 'right', cell: (i) => money(i.prices.onDemand) },
    { header: '$/h\nspot', align: 'right', cell: (i) => money(i.prices.spot) },
    { header: `$/GPU-h\n${PRICING_SHORT[pricing]}`, align: 'right', cell: (i) => perGpuCell(i, pricing) },
  ];
}

export function renderListTable(instances: readonly InstanceType[], catalog: InstanceCatalog, pricing: PricingModel, color: boolean): string {
  const paint = paints(color);
  const lines: string[] = [];
  if (instances.length === 0) {
    lines.push('No instance types match.');
  } else {
    const columns = listColumns(pricing);
    const rows = instances.map((instance) => columns.map((column) => column.cell(instance)));
    const natural = columns.map((column, c) => Math.max(cellWidth(column.header), ...rows.map((row) => cellWidth(row[c]!))));
    const gaps = tableWidth(columns.map(() => 0));
    const widths = fitColumnWidths(
      columns.map((column, c) => ({ natural: natural[c]!, minimum: column.minimum ?? natural[c]!, flexible: column.minimum !== undefined })),
      TABLE_WIDTH - gaps,
    );
    const terminalColumns: TerminalColumn[] = columns.map((column, c) => ({ header: paint.heading(column.header), align: column.align, width: widths[c]! }));
    lines.push(renderTerminalTable(terminalColumns, rows, true));
    lines.push('');
    lines.push(`${instances.length} instance ${instances.length === 1 ? 'type' : 'types'}.`);
  }
  if (instances.some(isFractionalGpu)) lines.push(paint.dim('* fractional GPU: $/GPU-h is per whole-GPU-equivalent (instance price / share of the GPU).'));
  if (instances.some((i) => i.vramPerGpuMiB === null && usableVramGiB(i) !== null)) {
    lines.push(paint.dim('~ lower bound from the marketed size in GB; no usable MiB figure known.'));
  }
  lines.push(paint.dim(describeCatalog(catalog)));
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Table: show

function sourced(value: NotedValue | null, unit: string, digits: number): string {
  if (value === null) return MISSING;
  const note = value.check === 'seen' ? '' : ` (${value.check})`;
  return `${formatNumber(value.value, digits)} ${unit}${note}`;
}

function priceLine(instance: InstanceType, usdPerHour: number | null, pricing: PricingModel | null): string {
  if (usdPerHour === null) return MISSING;
  const perGpu = pricing === null ? null : gpuHourPrice(instance, pricing);
  const per =
    perGpu === null ? '' : perGpu.basis === 'per-gpu' ? `, $${money(perGpu.usdPerGpuHour)} per GPU-hour` : `, $${money(perGpu.usdPerGpuHour)} per whole-GPU-equivalent hour`;
  return `$${exactMoney(usdPerHour)}/h${per}`;
}

function vramLine(instance: InstanceType): string {
  const nominal = instanceExtras(instance).vramPerGpuNominalGB ?? null;
  const marketed = nominal === null ? '' : `; marketed ${formatNumber(nominal, 0)} GB`;
  const slice = isFractionalGpu(instance) ? ' per slice' : '';
  if (instance.vramPerGpuMiB === null) return nominal === null ? MISSING : `${formatNumber(nominal, 0)} GB as marketed${slice} (no usable MiB figure known)`;
  return `${formatNumber(instance.vramPerGpuMiB / 1024, 1)} GiB${slice} (${formatNumber(instance.vramPerGpuMiB, 0)} MiB${marketed})`;
}

function gpuLine(instance: InstanceType): string {
  const model = toDisplayText(instance.gpuModelName);
  const key = instance.gpuModelKey === UNKNOWN_GPU_KEY ? 'not in the GPU table: model key unknown' : `model key ${instance.gpuModelKey}`;
  if (isFractionalGpu(instance)) return `${gpuCountLabel(instance)} of one ${model} (${key})`;
  return `${instance.gpuCount}x ${model} (${key})`;
}

function specRows(spec: GpuSpecRecord): [string, string][] {
  const mig = migTableFor(spec.key);
  return [
    ['GPU model', `${spec.key}: ${spec.productNames.map(toDisplayText).join(', ') || MISSING} (${toDisplayText(spec.architecture ?? 'architecture unknown')})`],
    ['GPU memory', sourced(spec.vramMiB, 'MiB', 0)],
    ['Bandwidth', sourced(spec.memoryBandwidthGBps, 'GB/s', 0)],
    ['BF16 dense', sourced(spec.bf16DenseTflops, 'TFLOPS', 1)],
    ['FP16 dense', sourced(spec.fp16DenseTflops, 'TFLOPS', 1)],
    ['FP32', sourced(spec.fp32Tflops, 'TFLOPS', 1)],
    ['TDP', sourced(spec.tdpW, 'W', 0)],
    ['MIG', mig === undefined ? (spec.migSupported ? 'yes (no profile table)' : 'no') : `yes: ${mig.profiles.map((p) => p.name).join(', ')}`],
  ];
}

/** Width of the key column of every section of `show`, so the values line up down the page. */
const SHOW_KEY_WIDTH = 16;

function keyValueTable(rows: [string, string][], paint: Paint): string {
  const keyWidth = SHOW_KEY_WIDTH;
  const columns: TerminalColumn[] = [
    { header: '', align: 'left', width: keyWidth },
    { header: '', align: 'left', width: TABLE_WIDTH - keyWidth - tableWidth([0, 0]) },
  ];
  // A header-less table: render with an empty header and drop its two lines (header, rule).
  const rendered = renderTerminalTable(columns, rows.map(([key, value]) => [paint.dim(key), toDisplayText(value)]), true);
  return rendered.split('\n').slice(2).join('\n');
}

export function renderShowTable(instance: InstanceType, catalog: InstanceCatalog, pricing: PricingModel, color: boolean): string {
  const paint = paints(color);
  const { prices } = instance;
  const extras = instanceExtras(instance);
  const network = instance.networkGbps === null ? MISSING : `${extras.networkUpTo === true ? 'up to ' : ''}${formatNumber(instance.networkGbps, 0)} Gbps`;
  const rows: [string, string][] = [
    ['Provider', `${instance.provider}, ${toDisplayText(instance.region)}`],
    ['GPUs', gpuLine(instance)],
    ['VRAM per GPU', vramLine(instance)],
    ['vCPUs', formatNumber(instance.vcpus, 0)],
    ['Memory', instance.memoryGiB === null ? MISSING : `${formatNumber(instance.memoryGiB, 0)} GiB`],
    ['Network', network],
    ['On-demand', priceLine(instance, prices.onDemand, 'on-demand')],
    ['Spot', prices.spot === null ? priceLine(instance, prices.spot, 'spot') : `${priceLine(instance, prices.spot, 'spot')}, observed ${prices.spotObservedAt ?? 'on an unknown date'}`],
    ['Reserved 1y', priceLine(instance, prices.reserved1y, null)],
    ['Reserved 3y', priceLine(instance, prices.reserved3y, null)],
    ['Savings plan 1y', priceLine(instance, prices.savingsPlan1y, null)],
    ['Savings plan 3y', priceLine(instance, prices.savingsPlan3y, null)],
  ];
  if (pricing !== 'on-demand' && pricing !== 'spot') {
    const answered = gpuHourPrice(instance, pricing);
    rows.push(['Per GPU-hour', answered === null ? `${MISSING} (no ${pricing} price)` : `$${money(answered.usdPerGpuHour)} at ${pricing} (${answered.basis})`]);
  }
  if (instance.retiredOn !== undefined) rows.unshift(['Retired', `on ${instance.retiredOn}: the plan never proposes it`]);
  const spec = gpuSpecByKey(instance.gpuModelKey);
  const sections = [paint.heading(toDisplayText(instance.name)), keyValueTable(rows, paint)];
  if (spec !== undefined) sections.push('', paint.heading(`GPU table (as of ${spec.asOf}; unmarked figures were seen in a cited source)`), keyValueTable(specRows(spec), paint));
  const sources = [...prices.sources, ...instance.sources].map((s) => ['', s] as [string, string]);
  if (sources.length > 0) sections.push('', paint.heading('Sources'), keyValueTable(sources, paint));
  const notes = (extras.notes ?? []).map((n) => ['', n] as [string, string]);
  if (notes.length > 0) sections.push('', paint.heading('Notes'), keyValueTable(notes, paint));
  sections.push('', paint.dim(describeCatalog(catalog)));
  return `${sections.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Whole outputs

/** `catalog list` in a format: the instances as filtered and sorted by the caller. */
export function renderCatalogList(
  format: CatalogFormat,
  view: { catalog: InstanceCatalog; pricing: PricingModel; filter: InstanceFilter; instances: readonly InstanceType[] },
  color: boolean,
): string {
  const { catalog, pricing, filter, instances } = view;
  if (format === 'json') {
    const body = {
      catalog: catalogLine(catalog),
      pricing,
      filter: Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)),
      count: instances.length,
      instances: instances.map((instance) => instanceView(instance, pricing)),
    };
    return `${JSON.stringify(body, null, 2)}\n`;
  }
  if (format === 'csv') return renderCsv(instances, catalog, pricing);
  return renderListTable(instances, catalog, pricing, color);
}

/** `catalog show` in a format: every instance of the name (one per provider or region). */
export function renderCatalogShow(format: CatalogFormat, view: { catalog: InstanceCatalog; pricing: PricingModel; instances: readonly InstanceType[] }, color: boolean): string {
  const { catalog, pricing, instances } = view;
  if (format === 'json') {
    const body = {
      catalog: catalogLine(catalog),
      pricing,
      instances: instances.map((instance) => ({ ...instanceView(instance, pricing), gpuSpec: gpuSpecByKey(instance.gpuModelKey) ?? null })),
    };
    return `${JSON.stringify(body, null, 2)}\n`;
  }
  if (format === 'csv') return renderCsv(instances, catalog, pricing);
  return instances.map((instance) => renderShowTable(instance, catalog, pricing, color)).join('\n');
}
