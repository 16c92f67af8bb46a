/**
 * The data modules under src/catalog/data are generated from ../shared by
 * scripts/build-catalog-data.ts; this keeps them from drifting from their sources.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTPUT_FILES, buildModules, parseCheck, readInputs, toTs } from '../../scripts/build-catalog-data.js';
import { repoRoot } from '../helpers/corpus.js';

describe('generated catalog data', () => {
  const built = buildModules(readInputs());

  it.each(Object.entries(OUTPUT_FILES))('%s (%s) matches what the script builds from ../shared today', (key, file) => {
    const committed = readFileSync(path.join(repoRoot, file), 'utf8');
    expect(committed === built[key as keyof typeof OUTPUT_FILES], `${file} is stale: run npx tsx scripts/build-catalog-data.ts`).toBe(true);
  });

  it('names its sources and their dates in each header', () => {
    expect(built.gpus).toContain('Source: ../shared/reference/gpus.json (as of 2026-11-29');
    expect(built.migProfiles).toContain('Source: ../shared/reference/mig-profiles.json (collected: 2026');
    expect(built.instances).toContain('../shared/catalog/gpu-instances.json (as of 2026-11-29) and ../shared/catalog/commitment-prices.json (as of 2026-11-29)');
  });

  it('reports the prices it could not attach (types missing from gpu-instances.json)', () => {
    expect(built.skipped).toEqual([
      'azure Standard_NC128ds_xl_RTXPRO6000BSE_v6 on-demand: not in gpu-instances.json',
      'azure Standard_NC128ds_xl_RTXPRO6000BSE_v6 spot: not in gpu-instances.json',
      'azure Standard_NC128ds_xl_RTXPRO6000BSE_v6 savings-plan-1y: not in gpu-instances.json',
      'azure Standard_NC128ds_xl_RTXPRO6000BSE_v6 savings-plan-3y: not in gpu-instances.json',
    ]);
  });
});

describe('parseCheck: the reference check marks', () => {
  it.each([
    ['seen', { check: 'seen' }],
    ['recalled', { check: 'recalled' }],
    ['seen (third-party 600.2)', { check: 'seen', note: 'seen (third-party 600.2)' }],
    ['unverified: NVIDIA publishes no A10G datasheet', { check: 'unverified', note: 'unverified: NVIDIA publishes no A10G datasheet' }],
    // A word outside the parentheses qualifies the value itself ...
    ['seen (single log) / unverified officially', { check: 'unverified', note: 'seen (single log) / unverified officially' }],
    // ... one inside qualifies only part of the claim.
    ['seen (MIG guide lists 180GB; marketed as 192GB on some pages - unverified)', { check: 'seen', note: 'seen (MIG guide lists 180GB; marketed as 192GB on some pages - unverified)' }],
    ['n/a (Infinity Fabric)', { check: 'unverified', note: 'n/a (Infinity Fabric)' }],
  ])('%s', (text, expected) => {
    expect(parseCheck(text)).toEqual(expected);
  });
});

describe('toTs', () => {
  it('writes bare keys where they are identifiers and keeps short plain lists on one line', () => {
    expect(toTs({ key: 'a', 'not-an-identifier': [1, 2], tags: ['X', 'Y'], nested: { value: null } })).toBe(
      '{\n  key: "a",\n  "not-an-identifier": [1, 2],\n  tags: ["X", "Y"],\n  nested: {\n    value: null,\n  },\n}',
    );
  });
});
