import { describe, expect, it } from 'vitest';
import { bundledCatalog, modelKeyOf, resolveInstanceType } from '../../src/catalog/index.js';
import type { InstanceCatalog, InstanceType } from '../../src/model/catalog.js';
import { InputError } from '../../src/support/errors.js';

const catalog = bundledCatalog();

describe('resolveInstanceType: inferred from GPU model x count', () => {
  it('8 x "NVIDIA H100 80GB HBM3" -> p5.48xlarge on AWS (the default provider), marked inferred', () => {
    const resolved = resolveInstanceType(catalog, { modelKey: modelKeyOf('NVIDIA H100 80GB HBM3'), gpuCount: 8 });
    expect(resolved).toMatchObject({ basis: 'inferred', instance: { name: 'p5.48xlarge', provider: 'aws' } });
  });

  it('takes the cheapest on-demand match: 1 x T4 on AWS is g4dn.xlarge ($0.526/h, cheapest of the five 1-GPU g4dn sizes)', () => {
    expect(resolveInstanceType(catalog, { modelKey: 't4', gpuCount: 1 })?.instance.name).toBe('g4dn.xlarge');
  });

  it('keeps to the provider and region asked for', () => {
    expect(resolveInstanceType(catalog, { modelKey: 'h100-sxm-80gb', gpuCount: 8, provider: 'azure' })?.instance.name).toBe('Standard_ND96isr_H100_v5');
    expect(resolveInstanceType(catalog, { modelKey: 'h100-sxm-80gb', gpuCount: 8, provider: 'aws', region: 'eu-west-1' })).toBeUndefined();
  });

  it('prefers the exact GPU count; without one, the nearest larger type stands in for its per-GPU price', () => {
    // No AWS type has 3 x H100: p5.48xlarge (8 x H100) is the nearest larger, still marked inferred.
    expect(resolveInstanceType(catalog, { modelKey: 'h100-sxm-80gb', gpuCount: 3 })).toMatchObject({ basis: 'inferred', instance: { name: 'p5.48xlarge', gpuCount: 8 } });
    // 16 x H100 is more than any type holds: the largest stands in.
    expect(resolveInstanceType(catalog, { modelKey: 'h100-sxm-80gb', gpuCount: 16 })?.instance.gpuCount).toBe(8);
  });

  it('does not infer from an unknown model, nor for zero GPUs', () => {
    expect(resolveInstanceType(catalog, { modelKey: 'unknown', gpuCount: 8 })).toBeUndefined();
    expect(resolveInstanceType(catalog, { modelKey: 'h100-sxm-80gb', gpuCount: 0 })).toBeUndefined();
  });

  it('breaks ties deterministically: priced before unpriced, then by name', () => {
    // GCP 8 x H100: a3-edgegpu-8g, a3-highgpu-8g and a3-megagpu-8g all lack a price -> the first by name.
    expect(resolveInstanceType(catalog, { modelKey: 'h100-sxm-80gb', gpuCount: 8, provider: 'gcp' })?.instance.name).toBe('a3-edgegpu-8g');
    const twin = (name: string, onDemand: number | null): InstanceType => ({ ...catalog.instances.find((i) => i.name === 'p5.48xlarge')!, name, prices: { ...catalog.instances[0]!.prices, onDemand } });
    const tied: InstanceCatalog = { ...catalog, instances: [twin('z-priced', 50), twin('b-unpriced', null), twin('m-priced', 50)] };
    expect(resolveInstanceType(tied, { modelKey: 'h100-sxm-80gb', gpuCount: 8 })?.instance.name).toBe('m-priced');
  });
});

describe('resolveInstanceType: named types win over inference', () => {
  const host = { modelKey: 'h100-sxm-80gb', gpuCount: 8 };

  it('--instance-type (flag) beats the node label and inference', () => {
    expect(resolveInstanceType(catalog, { ...host, explicitType: 'p5en.48xlarge', nodeLabelType: 'p5.48xlarge' })).toMatchObject({ basis: 'flag', instance: { name: 'p5en.48xlarge' } });
  });

  it('the config host map says config', () => {
    expect(resolveInstanceType(catalog, { ...host, explicitType: 'p5.48xlarge', explicitBasis: 'config' })?.basis).toBe('config');
  });

  it('the Kubernetes node label beats inference, case-insensitively', () => {
    expect(resolveInstanceType(catalog, { ...host, nodeLabelType: 'standard_nd96isr_h100_v5' })).toMatchObject({ basis: 'label', instance: { name: 'Standard_ND96isr_H100_v5' } });
  });

  it('a label naming a type the catalog lacks leaves the host unpriced rather than guessing another type', () => {
    expect(resolveInstanceType(catalog, { ...host, nodeLabelType: 'p5.96xlarge' })).toBeUndefined();
  });

  it('a user-named type the catalog lacks is an input error with close matches', () => {
    expect(() => resolveInstanceType(catalog, { ...host, explicitType: 'p5.48xlrge' })).toThrow(InputError);
    expect(() => resolveInstanceType(catalog, { ...host, explicitType: 'p5.48xlrge' })).toThrow(/not in catalog bundled-2026-11-29; did you mean p5\.48xlarge/);
  });

  it('blank names count as not given', () => {
    expect(resolveInstanceType(catalog, { ...host, explicitType: '  ', nodeLabelType: '' })?.basis).toBe('inferred');
  });
});
