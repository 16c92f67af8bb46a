/**
 * `gpu-audit catalog list|show`: the instance catalog the audit prices with (the bundled
 * snapshot, or the newest cache `catalog refresh` wrote), filtered and sorted; rendered by
 * src/render/catalog.ts.
 *
 * `catalog refresh` lives with the cloud collectors; the lead attaches it through
 * `CatalogCommandDeps.refreshCommand` (the hook below), so this file does not import them.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  filterInstances,
  findInstances,
  closeInstanceNames,
  loadCatalog as loadCatalogFromDisk,
  sortInstances,
  PROVIDERS,
  SORT_KEYS,
  type InstanceFilter,
  type LoadCatalogOptions,
  type Provider,
  type SortKey,
} from '../../catalog/index.js';
import type { InstanceCatalog, PricingModel } from '../../model/index.js';
import { InputError } from '../../support/index.js';
import { CATALOG_FORMATS, renderCatalogList, renderCatalogShow, type CatalogFormat } from '../../render/index.js';
import { commanderOutput, useColor, type CliIo } from '../io.js';
import { PRICING_MODELS, addOutputOptions } from '../options.js';
import { emitOutput } from '../output.js';

export interface CatalogCommandDeps {
  loadCatalog: (options?: LoadCatalogOptions) => Promise<InstanceCatalog>;
  /** Hook: `catalog refresh` (src/catalog/refresh, aws.ts, azure.ts, cache.ts) is attached here. */
  refreshCommand?: () => Command;
}

interface CommonOptions {
  format: CatalogFormat;
  output?: string;
  quiet?: boolean;
  color?: boolean;
  pricing: PricingModel;
  bundled?: boolean;
}

interface ListOptions extends CommonOptions {
  provider?: Provider[];
  region?: string;
  gpu?: string;
  minVram?: number;
  includeRetired?: boolean;
  maxPrice?: number;
  sort: SortKey;
  desc?: boolean;
}

interface ShowOptions extends CommonOptions {
  provider?: Provider[];
  region?: string;
}

// ---------------------------------------------------------------------------------------------
// Option parsing

function providers(value: string): Provider[] {
  const names = value.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  for (const name of names) {
    if (!(PROVIDERS as readonly string[]).includes(name)) throw new InvalidArgumentError(`expected ${PROVIDERS.join(', ')} (comma-separated), got ${name}`);
  }
  return names as Provider[];
}

function nonNegative(what: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError(`expected ${what}, a number >= 0`);
    return parsed;
  };
}

function addCatalogChoiceOptions(command: Command): Command {
  return command
    .addOption(new Option('--provider <clouds>', `only these clouds, comma-separated: ${PROVIDERS.join(', ')}`).argParser(providers))
    .addOption(new Option('--region <region>', 'only this region (the bundled snapshot: us-east-1, eastus, eastus2, us-central1)'))
    .addOption(new Option('--pricing <model>', 'price used for --max-price, sorting and $/GPU-h').choices(PRICING_MODELS).default('on-demand'))
    .addOption(new Option('--bundled', 'use the bundled snapshot even when a refreshed cache exists'));
}

// ---------------------------------------------------------------------------------------------
// Commands

async function catalogFor(deps: CatalogCommandDeps, options: CommonOptions, io: CliIo): Promise<InstanceCatalog> {
  return deps.loadCatalog({
    preferCache: options.bundled !== true,
    cache: {
      env: io.env,
      // A broken cache file is not fatal (the snapshot is used), but the user should know.
      onIgnored: (ignored) => {
        if (options.quiet !== true) io.stderr(`gpu-audit: ignoring catalog cache ${ignored.path}: ${ignored.reason}\n`);
      },
    },
  });
}

export async function runCatalogList(options: ListOptions, io: CliIo, deps: CatalogCommandDeps): Promise<void> {
  const catalog = await catalogFor(deps, options, io);
  const filter: InstanceFilter = {
    providers: options.provider,
    region: options.region,
    gpu: options.gpu,
    minVramGB: options.minVram,
    includeRetired: options.includeRetired === true,
    maxPricePerHour: options.maxPrice,
    pricing: options.pricing,
  };
  const instances = sortInstances(filterInstances(catalog.instances, filter), { key: options.sort, pricing: options.pricing, descending: options.desc === true });
  await emitOutput(io, renderCatalogList(options.format, { catalog, pricing: options.pricing, filter, instances }, useColor(io, options)), options.output);
}

export async function runCatalogShow(typeName: string, options: ShowOptions, io: CliIo, deps: CatalogCommandDeps): Promise<void> {
  const catalog = await catalogFor(deps, options, io);
  const named = findInstances(catalog.instances, typeName);
  const matches = filterInstances(named, { providers: options.provider, region: options.region });
  if (matches.length === 0) {
    const close = closeInstanceNames(catalog.instances, typeName);
    const where = named.length > 0 ? ` with ${[options.provider?.join(','), options.region].filter(Boolean).join(' in ')}` : '';
    const hint = close.length > 0 ? `; close matches: ${close.join(', ')}` : '; run `gpu-audit catalog list` to see every type';
    throw new InputError(`instance type ${typeName}${where} is not in catalog ${catalog.name}${hint}`);
  }
  const sorted = sortInstances(matches, { key: 'provider' });
  await emitOutput(io, renderCatalogShow(options.format, { catalog, pricing: options.pricing, instances: sorted }, useColor(io, options)), options.output);
}

export function catalogCommand(io: CliIo, deps: Partial<CatalogCommandDeps> = {}): Command {
  const resolved: CatalogCommandDeps = { loadCatalog: deps.loadCatalog ?? loadCatalogFromDisk, refreshCommand: deps.refreshCommand };
  const catalog = new Command('catalog').description('GPU instance types and prices: the bundled snapshot or a refreshed cache');
  catalog.addHelpText('after', `
Examples:
  $ gpu-audit catalog list --provider aws --gpu H100
  $ gpu-audit catalog list --min-vram 40 --max-price 10 --sort gpu-price
  $ gpu-audit catalog show Standard_ND96isr_H200_v5

The bundled snapshot covers AWS us-east-1, Azure eastus/eastus2 and GCP us-central1.`);

  const list = new Command('list')
    .description('list instance types, filtered and sorted')
    .addOption(new Option('--gpu <model>', 'GPU model words: H100, A10G, h100-sxm-80gb, "NVIDIA H100 80GB HBM3" (whole words: A10 is not A100)'))
    .addOption(new Option('--min-vram <GB>', 'GPU memory as marketed at least GB: 80 finds every H100 80GB (whose 81,559 MiB usable are 79.6 GiB)').argParser(nonNegative('GB')))
    .addOption(new Option('--include-retired', 'also list types the provider has retired (marked; never proposed)'))
    .addOption(new Option('--max-price <usd>', 'instance price per hour at --pricing at most USD (types without that price are left out)').argParser(nonNegative('USD per hour')))
    .addOption(new Option('--sort <key>', 'sort by').choices(SORT_KEYS).default('price'))
    .addOption(new Option('--desc', 'largest first (unknown values stay last)'));
  addCatalogChoiceOptions(list);
  addOutputOptions(list, CATALOG_FORMATS);
  list.addHelpText('after', `
Examples:
  $ gpu-audit catalog list --provider aws --gpu H100 --format json
  $ gpu-audit catalog list --gpu L4 --sort gpu-price
  $ gpu-audit catalog list --provider azure,gcp --min-vram 70 --format csv -o gpus.csv

Columns: VRAM/GPU in GiB as the driver reports it; prices in USD per hour; $/GPU-h is the
price at --pricing divided by the GPUs (for fractional types, by the share of one GPU: *).
Memory, network, commitment prices and sources: \`catalog show TYPE\`, or --format json/csv.`);
  list.action(async (options: ListOptions) => {
    await runCatalogList(options, io, resolved);
  });

  const show = new Command('show')
    .description('everything the catalog knows about one instance type, with the GPU model behind it')
    .argument('<type>', 'instance type, e.g. p5.48xlarge, Standard_ND96isr_H200_v5, a3-highgpu-8g');
  addCatalogChoiceOptions(show);
  addOutputOptions(show, CATALOG_FORMATS);
  show.addHelpText('after', `
Examples:
  $ gpu-audit catalog show p5.48xlarge
  $ gpu-audit catalog show Standard_ND96isr_H200_v5 --format json`);
  show.action(async (typeName: string, options: ShowOptions) => {
    await runCatalogShow(typeName, options, io, resolved);
  });

  const subs = resolved.refreshCommand === undefined ? [list, show] : [list, show, resolved.refreshCommand()];
  for (const sub of subs) {
    // Usage errors end through the program's single handler (exit 2), as for top-level commands.
    sub.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(commanderOutput(io));
    catalog.addCommand(sub);
  }
  return catalog;
}
