import type { Report } from '../model/index.js';

/** What every renderer is told about where its output goes. */
export interface RenderOptions {
  /** Emit ANSI colours. When false the output holds no escape sequence at all. */
  color: boolean;
  /** Terminal columns the output should fit (formats without a layout ignore it). */
  width: number;
}

/**
 * One output format. A renderer formats what the Report holds and computes no
 * figure of its own: rounding and unit scaling for display only (see format.ts).
 */
export type Renderer = (report: Report, options: RenderOptions) => string;

export const DEFAULT_RENDER_OPTIONS: Readonly<RenderOptions> = { color: false, width: 100 };
