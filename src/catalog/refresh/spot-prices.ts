/**
 * AWS spot price history -> one typical spot price per instance type: the newest price in each
 * availability zone, then the median across zones (the mean of the middle two when the count
 * is even). The bundled snapshot's spot figures are built the same way.
 */
import type { SpotPrice } from '@aws-sdk/client-ec2';

/** The product the catalog prices; the history also holds Windows and SUSE rows. */
export const SPOT_PRODUCT_DESCRIPTION = 'Linux/UNIX';

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Typical spot price per instance type, from history records in any order. */
export function typicalSpotPrices(history: readonly SpotPrice[]): Map<string, number> {
  const newestPerZone = new Map<string, Map<string, { at: number; price: number }>>();
  for (const record of history) {
    if (record.ProductDescription !== undefined && record.ProductDescription !== SPOT_PRODUCT_DESCRIPTION) continue;
    const type = record.InstanceType;
    const zone = record.AvailabilityZone ?? record.AvailabilityZoneId;
    const price = Number(record.SpotPrice);
    if (type === undefined || zone === undefined || record.SpotPrice === undefined || !Number.isFinite(price)) continue;
    const at = record.Timestamp?.getTime() ?? 0;
    const zones = newestPerZone.get(type) ?? new Map<string, { at: number; price: number }>();
    const seen = zones.get(zone);
    if (seen === undefined || at > seen.at) zones.set(zone, { at, price });
    newestPerZone.set(type, zones);
  }
  const typical = new Map<string, number>();
  for (const [type, zones] of newestPerZone) {
    const value = median([...zones.values()].map((entry) => entry.price));
    if (value !== null) typical.set(type, value);
  }
  return typical;
}
