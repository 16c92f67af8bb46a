/**
 * Serving readings in, serving entries and their intervals out: the table
 * (./serving-table.ts) and the entries made of it (./serving-entries.ts), with what was left
 * out said once. The file audit's analyzer and the live Prometheus audit both collect through
 * it, so a server and its saved scrapes give the same figures.
 */
import type { ServingSample } from '../../model/index.js';
import { servingEntries, type ServingEntriesResult } from './serving-entries.js';
import { MAX_SERVING_INSTANCES, MAX_SERVING_SERIES_PER_INSTANCE, MAX_TIMELINE_INSTANCES, ServingTable } from './serving-table.js';

export class ServingCollector {
  private readonly table = new ServingTable();

  add(sample: ServingSample): void {
    this.table.add(sample);
  }

  finish(): ServingEntriesResult {
    const table = this.table;
    const result = servingEntries(table.instances.values(), table.grid.widthMs);
    const warnings = [...result.warnings];
    if (table.outOfOrder > 0) warnings.push(`${table.outOfOrder} inference-server readings older than a later scrape of the same server were left out`);
    if (table.dropped > 0) warnings.push(`more than ${MAX_SERVING_INSTANCES} inference-server instances or ${MAX_SERVING_SERIES_PER_INSTANCE} series of one; ${table.dropped} readings of the others were not kept`);
    if (table.instances.size > MAX_TIMELINE_INSTANCES) warnings.push(`more than ${MAX_TIMELINE_INSTANCES} inference-server instances: the others' load is kept as window totals only (no peaks, capacity or chart)`);
    return { ...result, warnings };
  }
}
