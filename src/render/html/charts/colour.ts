/**
 * Colours: a perceptually uniform ramp for percentages (viridis: dark purple at 0 %, yellow at
 * 100 %, legible in grey scale and for the common colour-vision deficiencies) and a fixed
 * palette for categories.
 */

const VIRIDIS_STOPS: readonly (readonly [number, number, number])[] = [
  [68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
  [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37],
];

export const NO_DATA_COLOUR = '#e8e8ec';

export const PALETTE = {
  used: '#3b5b92',
  total: '#c9d3e6',
  busy: '#3b5b92',
  idle: '#e07b39',
  idleHours: '#e07b39',
  unknown: '#b0b0b8',
  line: '#2a6f97',
  area: '#a9cce3',
  axis: '#6b6b76',
  grid: '#e3e3ea',
  text: '#1f1f24',
  muted: '#5f5f6b',
} as const;

const hex = (value: number): string => Math.round(value).toString(16).padStart(2, '0');

/** The ramp colour of a percentage (clamped to 0-100). */
export function percentColour(percent: number): string {
  const clamped = Math.min(100, Math.max(0, percent));
  const position = (clamped / 100) * (VIRIDIS_STOPS.length - 1);
  const lower = Math.floor(position);
  const upper = Math.min(VIRIDIS_STOPS.length - 1, lower + 1);
  const weight = position - lower;
  const [r0, g0, b0] = VIRIDIS_STOPS[lower]!;
  const [r1, g1, b1] = VIRIDIS_STOPS[upper]!;
  return `#${hex(r0 + (r1 - r0) * weight)}${hex(g0 + (g1 - g0) * weight)}${hex(b0 + (b1 - b0) * weight)}`;
}
