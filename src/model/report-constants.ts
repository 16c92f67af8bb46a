/**
 * The constants of the report contract, apart from its zod definitions (./report-schema.ts) so
 * that code which needs a value at run time does not load zod.
 */

/** Bumped when a field changes meaning or is removed; `report` and `check --baseline` read this version. */
export const REPORT_SCHEMA_VERSION = 1;

/** At most this many buckets in a GPU's timeline, whatever the window (buckets widen as it grows). */
export const TIMELINE_MAX_BUCKETS = 500;
