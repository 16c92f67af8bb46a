/**
 * Seeded randomness for the benchmark inputs: mulberry32 seeded by FNV-1a of a stream
 * name, the same scheme as fixtures/generate-demo.ts (whose Random class is not exported).
 * Ours, not Math.random, so that a generated file is the same bytes on every machine.
 */
export class SeededRandom {
  private state: number;

  constructor(streamName: string) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < streamName.length; i += 1) {
      hash ^= streamName.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    this.state = hash;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [low, high], both included. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  float(low: number, high: number): number {
    return low + this.next() * (high - low);
  }

  hex(digits: number): string {
    let text = '';
    for (let i = 0; i < digits; i += 1) text += '0123456789abcdef'[this.int(0, 15)];
    return text;
  }

  uuid(): string {
    return `GPU-${this.hex(8)}-${this.hex(4)}-${this.hex(4)}-${this.hex(4)}-${this.hex(12)}`;
  }
}
