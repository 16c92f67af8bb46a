/**
 * The config as the settings it stands for, and how it meets the command line: a flag the
 * user typed wins over the config, and the config wins over the built-in default.
 *
 * `loadAuditConfig` finds the file to use: `--config FILE`, else the demo's own config with
 * `--demo`, else gpu-audit.yaml discovered from the working directory upwards (./discover.ts).
 */
import { discoverConfigFile } from './discover.js';
import type { LoadedConfig } from './document/load.js';
import type { GpuAuditConfig, WorkloadConfig } from './document/schema.js';

export interface ConfigSettings {
  idleThresholdPct: number | undefined;
  timezone: string | undefined;
  pricing: 'on-demand' | 'spot' | 'reserved-1y' | 'reserved-3y' | undefined;
  provider: 'aws' | 'azure' | 'gcp' | undefined;
  region: string | undefined;
  vramHeadroomPct: number | undefined;
  workloads: WorkloadConfig[];
  /** In file order: the first glob matching a host gives its instance type. */
  hostInstanceTypes: { host: string; instanceType: string }[];
  commitmentDiscountPct: Partial<Record<'reserved-1y' | 'reserved-3y', number>>;
  planBasis: 'observed' | 'declared' | undefined;
  /** Share of spot capacity reclaimed a month, percent (the Spot Advisor figure for the user's pools). */
  spotInterruptionsPerMonthPct: number | undefined;
}

export function settingsOf(config: GpuAuditConfig): ConfigSettings {
  const discounts = config.pricing?.discounts;
  return {
    idleThresholdPct: config.idleThresholdPct,
    timezone: config.timezone,
    pricing: config.pricing?.model,
    provider: config.pricing?.provider,
    region: config.pricing?.region,
    vramHeadroomPct: config.vramHeadroomPct,
    workloads: config.workloads ?? [],
    hostInstanceTypes: Object.entries(config.hosts ?? {}).map(([host, entry]) => ({ host, instanceType: entry.instanceType })),
    planBasis: config.plan?.basis,
    spotInterruptionsPerMonthPct: config.pricing?.spotInterruptionsPerMonthPct,
    commitmentDiscountPct: {
      ...(discounts?.reserved1yPct === undefined ? {} : { 'reserved-1y': discounts.reserved1yPct }),
      ...(discounts?.reserved3yPct === undefined ? {} : { 'reserved-3y': discounts.reserved3yPct }),
    },
  };
}

/** The flag's value where the user typed it, else the config's, else the flag's default. */
export function flagOverConfig<T>(flagValue: T, flagGiven: boolean, configValue: T | undefined): T {
  return flagGiven || configValue === undefined ? flagValue : configValue;
}

export interface ConfigLookup {
  /** `--config FILE`. */
  explicitFile?: string;
  /** The demo's config, used with --demo when no --config is given. */
  demoFile?: string;
  /** Where discovery starts (the working directory). */
  cwd: string;
}

/** The config in force, or undefined when there is none. A named file that cannot be read is an error. */
export async function loadAuditConfig(lookup: ConfigLookup): Promise<LoadedConfig | undefined> {
  const file = lookup.explicitFile ?? lookup.demoFile ?? (await discoverConfigFile(lookup.cwd));
  if (file === undefined) return undefined;
  // The YAML parser and the zod schema load only when there is a config to read.
  const { loadConfigFile } = await import('./document/load.js');
  return loadConfigFile(file);
}
