/**
 * The constants of the report contract, apart from its zod definitions (./report-schema.ts) so
 * that code which needs a value at run time does not load zod.
 */

/**
 * Bumped when a field changes meaning or is removed: 2 added the plan, and made the
 * recommendations its steps. `report` and `check --baseline` read this version and the ones
 * in READABLE_SCHEMA_VERSIONS.
 */
export const REPORT_SCHEMA_VERSION = 2;

/** Saved reports these versions read: a schema-1 report has no plan (read as null). */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1, 2];

/** At most this many buckets in a GPU's timeline, whatever the window (buckets widen as it grows). */
export const TIMELINE_MAX_BUCKETS = 500;
