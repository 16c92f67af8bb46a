/**
 * What `gpu-audit catalog refresh` prints: per provider and region, the GPU types and prices
 * fetched or the failure, and the cache file each provider was written to.
 */
import type { RefreshProvider, RegionFailure, RegionSummary } from '../catalog/index.js';
import { csvField } from './csv.js';
import { MISSING } from './format.js';
import { renderTerminalTable, type TerminalColumn } from './terminal-table.js';
import { toDisplayText } from '../support/index.js';

export const REFRESH_FORMATS = ['table', 'json', 'csv'] as const;
export type RefreshFormat = (typeof REFRESH_FORMATS)[number];

export interface ProviderResult {
  provider: RefreshProvider;
  cacheFile: string;
  fetchedAt: string;
  regions: RegionSummary[];
  failures: RegionFailure[];
  notices: string[];
}

const TABLE_COLUMNS: readonly TerminalColumn[] = [
  { header: 'provider', align: 'left', width: 8 },
  { header: 'region', align: 'left', width: 16 },
  { header: 'GPU types', align: 'right', width: 9 },
  { header: 'on-demand', align: 'right', width: 9 },
  { header: 'spot', align: 'right', width: 5 },
  { header: 'status', align: 'left', width: 48 },
];

function tableText(results: readonly ProviderResult[], showNotes: boolean): string {
  const rows = results.flatMap((result) => [
    ...result.regions.map((region) => [result.provider, region.region, String(region.instanceTypes), String(region.withOnDemandPrice), String(region.withSpotPrice), 'ok']),
    ...result.failures.map((failure) => [result.provider, failure.region, MISSING, MISSING, MISSING, toDisplayText(`failed: ${failure.error}`)]),
  ]);
  const lines = [renderTerminalTable(TABLE_COLUMNS, rows, true), ''];
  for (const result of results) {
    lines.push(`${result.provider} cache: ${toDisplayText(result.cacheFile)} (fetched ${result.fetchedAt})`);
    if (showNotes) for (const notice of result.notices) lines.push(`  note: ${toDisplayText(notice)}`);
  }
  return `${lines.join('\n')}\n`;
}

function csvText(results: readonly ProviderResult[]): string {
  const header = ['provider', 'region', 'status', 'instanceTypes', 'withOnDemandPrice', 'withSpotPrice', 'error', 'cacheFile', 'fetchedAt'];
  const rows = results.flatMap((result) => [
    ...result.regions.map((region) => [result.provider, region.region, 'ok', region.instanceTypes, region.withOnDemandPrice, region.withSpotPrice, '', result.cacheFile, result.fetchedAt]),
    ...result.failures.map((failure) => [result.provider, failure.region, 'failed', '', '', '', failure.error, result.cacheFile, result.fetchedAt]),
  ]);
  return `${[header, ...rows].map((row) => row.map(csvField).join(',')).join('\n')}\n`;
}

/** What `catalog refresh` prints: each region fetched or failed, and the cache files written. */
export function renderRefresh(results: readonly ProviderResult[], format: RefreshFormat, showNotes: boolean): string {
  if (format === 'json') return `${JSON.stringify({ providers: results }, null, 2)}\n`;
  return format === 'csv' ? csvText(results) : tableText(results, showNotes);
}

