/**
 * Scales: how a chart maps values to pixels. Layout only - no figure is derived here.
 */

export interface LinearScale {
  (value: number): number;
  readonly domain: readonly [number, number];
  readonly range: readonly [number, number];
}

/** Maps domain[0] -> range[0] and domain[1] -> range[1] linearly; a zero-width domain maps to range[0]. */
export function linearScale(domain: readonly [number, number], range: readonly [number, number]): LinearScale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0;
  const scale = (value: number): number => (span === 0 ? r0 : r0 + ((value - d0) / span) * (r1 - r0));
  return Object.assign(scale, { domain, range });
}

/** A step of 1, 2, 2.5 or 5 x 10^k that splits `span` into at most `maxTicks` intervals. */
export function niceStep(span: number, maxTicks: number): number {
  if (!(span > 0) || maxTicks < 1) return 1;
  const rough = span / maxTicks;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  for (const multiple of [1, 2, 2.5, 5, 10]) {
    if (multiple * magnitude >= rough) return multiple * magnitude;
  }
  return 10 * magnitude;
}

/** Ticks from 0 to the first multiple of the nice step at or above `max` (an axis that starts at zero, as bars must). */
export function zeroBasedTicks(max: number, maxTicks = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const step = niceStep(max, maxTicks);
  const count = Math.ceil(max / step - 1e-9);
  return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

export interface BandScale {
  /** Top (or left) of band i. */
  start(index: number): number;
  readonly bandwidth: number;
  readonly step: number;
}

/** `count` equal bands over `range`, each leaving `paddingRatio` of its step empty (half before, half after). */
export function bandScale(count: number, range: readonly [number, number], paddingRatio = 0.2): BandScale {
  const step = count > 0 ? (range[1] - range[0]) / count : 0;
  const bandwidth = step * (1 - paddingRatio);
  return { start: (index) => range[0] + index * step + (step - bandwidth) / 2, bandwidth, step };
}
