import type { PodAssignment, ServingSample } from '../../src/model/observations.js';
import type { ParseResult, SourceContext, SourceParser } from '../../src/sources/types.js';
import { chunked, RecordingSink } from './sink.js';

/** RecordingSink that also keeps pod assignments and serving readings (the optional sink methods dcgm-exporter and the serving readers feed). */
export class AssignmentRecordingSink extends RecordingSink {
  readonly assignments: PodAssignment[] = [];
  readonly servingReadings: ServingSample[] = [];

  assignment(assignment: PodAssignment): void {
    this.assignments.push(assignment);
  }

  serving(sample: ServingSample): void {
    this.servingReadings.push(sample);
  }
}

export const CONTEXT: SourceContext = { ref: 'input.txt', host: 'file-host', timeZone: 'UTC' };

export interface Parsed {
  sink: AssignmentRecordingSink;
  result: ParseResult;
}

/** Parses inline text with `parser` as the CLI would, optionally cut into chunks of the given sizes, recording every call. */
export async function parseWith(parser: SourceParser, text: string, chunkSizes?: number[], context: Partial<SourceContext> = {}): Promise<Parsed> {
  const sink = new AssignmentRecordingSink();
  const result = await parser.parse(chunked(text, chunkSizes), { ...CONTEXT, ...context }, sink);
  return { sink, result };
}
