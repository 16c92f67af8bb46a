/**
 * Load and latency of each server instance by interval, on one grid for all instances (an
 * interval is `floor(time / width)`), so that a pool's servers add up interval by interval and
 * bursts of two servers in different minutes stay apart. What an interval holds: the time its
 * scrapes cover (from the scrape before), the increases of the request and token counters and
 * of each end-to-end latency bucket that end in it, and the queue gauge's readings. Where an
 * instance would hold more than MAX_INTERVALS, the grid widens for every instance to the next
 * width of a ladder of common scrape multiples (1, 5, 15, 30, 60 minutes, then doubling), each
 * a multiple of the one before, merging the intervals it joins: memory stays bounded whatever
 * the window's length, and scrapes every 5 or 15 minutes fill intervals evenly.
 */
import type { ServingSample } from '../../model/index.js';

export interface ServingInterval {
  /** Milliseconds of scrape-to-scrape time that end in the interval: the rates' denominator. */
  spanMs: number;
  requests: number;
  generationTokens: number;
  waitingSum: number;
  waitingCount: number;
  /** End-to-end latency bucket bound (Infinity for +Inf) -> its increase. */
  e2e: Map<number, number>;
}

const WIDTH_LADDER_MS = [60_000, 300_000, 900_000, 1_800_000, 3_600_000];
/** A day and a half of 5-minute intervals. */
export const MAX_INTERVALS = 432;

function nextWidth(widthMs: number): number {
  return WIDTH_LADDER_MS.find((width) => width > widthMs) ?? widthMs * 2;
}

interface HasIntervals {
  intervals: Map<number, ServingInterval> | null;
}

function emptyInterval(): ServingInterval {
  return { spanMs: 0, requests: 0, generationTokens: 0, waitingSum: 0, waitingCount: 0, e2e: new Map() };
}

function merge(into: ServingInterval, from: ServingInterval): void {
  into.spanMs += from.spanMs;
  into.requests += from.requests;
  into.generationTokens += from.generationTokens;
  into.waitingSum += from.waitingSum;
  into.waitingCount += from.waitingCount;
  for (const [bound, count] of from.e2e) into.e2e.set(bound, (into.e2e.get(bound) ?? 0) + count);
}

export class ServingIntervals {
  widthMs = WIDTH_LADDER_MS[0]!;
  private readonly members: HasIntervals[] = [];

  /** The interval `time` falls in, created where new. */
  at(owner: HasIntervals, time: number): ServingInterval {
    if (owner.intervals!.size === 0 && !this.members.includes(owner)) this.members.push(owner);
    // Coarsening replaces every member's map: read it again after.
    while (owner.intervals!.size >= MAX_INTERVALS && !owner.intervals!.has(Math.floor(time / this.widthMs))) this.coarsen();
    const intervals = owner.intervals!;
    const key = Math.floor(time / this.widthMs);
    let interval = intervals.get(key);
    if (interval === undefined) {
      interval = emptyInterval();
      intervals.set(key, interval);
    }
    return interval;
  }

  /** A counter's increase, where it is one the intervals keep. */
  count(owner: HasIntervals, sample: ServingSample, delta: number): void {
    if (sample.metric === 'requests' && sample.kind === 'counter') this.at(owner, sample.time!).requests += delta;
    // TGI counts generated tokens only as the sum of its token histogram.
    else if (sample.metric === 'generation-tokens' && (sample.kind === 'counter' || sample.kind === 'sum')) this.at(owner, sample.time!).generationTokens += delta;
    else if (sample.metric === 'e2e-latency' && sample.kind === 'bucket') {
      const interval = this.at(owner, sample.time!);
      interval.e2e.set(sample.bound!, (interval.e2e.get(sample.bound!) ?? 0) + delta);
    }
  }

  private coarsen(): void {
    const factor = nextWidth(this.widthMs) / this.widthMs;
    this.widthMs *= factor;
    for (const member of this.members) {
      const merged = new Map<number, ServingInterval>();
      for (const [key, interval] of member.intervals!) {
        const next = Math.floor(key / factor);
        const into = merged.get(next);
        if (into === undefined) merged.set(next, interval);
        else merge(into, interval);
      }
      member.intervals = merged;
    }
  }
}
