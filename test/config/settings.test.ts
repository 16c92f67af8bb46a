/** The config under the flags: a typed flag wins, the config beats a default. */
import { describe, expect, it } from 'vitest';
import { flagOverConfig, settingsOf } from '../../src/config/index.js';
import { parseConfig } from '../../src/config/document/index.js';

describe('settingsOf', () => {
  it('turns the config into the settings the audit takes', () => {
    const settings = settingsOf(parseConfig(`
pricing: { provider: azure, region: eastus, model: reserved-3y, discounts: { reserved3yPct: 55 }, spotInterruptionsPerMonthPct: 12 }
hosts:
  gpu-a-*: { instanceType: Standard_NC24ads_A100_v4 }
  "*": { instanceType: Standard_NC40ads_H100_v5 }
idleThresholdPct: 10
vramHeadroomPct: 20
timezone: Asia/Tokyo
`, 'gpu-audit.yaml'));
    expect(settings).toEqual({
      idleThresholdPct: 10,
      timezone: 'Asia/Tokyo',
      pricing: 'reserved-3y',
      provider: 'azure',
      region: 'eastus',
      vramHeadroomPct: 20,
      workloads: [],
      hostInstanceTypes: [
        { host: 'gpu-a-*', instanceType: 'Standard_NC24ads_A100_v4' },
        { host: '*', instanceType: 'Standard_NC40ads_H100_v5' },
      ],
      commitmentDiscountPct: { 'reserved-3y': 55 },
      spotInterruptionsPerMonthPct: 12,
      planBasis: undefined,
    });
  });

  it('leaves unset what the config does not set', () => {
    expect(settingsOf({})).toMatchObject({ idleThresholdPct: undefined, pricing: undefined, workloads: [], hostInstanceTypes: [], commitmentDiscountPct: {} });
  });
});

describe('flagOverConfig', () => {
  it.each<[number, boolean, number | undefined, number]>([
    [5, false, 10, 10], // default flag, config set: config
    [5, true, 10, 5], // typed flag: flag, even when it equals the default
    [7, true, 10, 7],
    [5, false, undefined, 5], // nothing in the config: the default
  ])('flag %d (typed %s), config %s -> %d', (flag, typed, config, expected) => {
    expect(flagOverConfig(flag, typed, config)).toBe(expected);
  });
});
