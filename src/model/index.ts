export type * from './observations.js';
export type * from './report.js';
export type * from './catalog.js';
export { REPORT_SCHEMA_VERSION } from './report.js';
export { InputError, UpstreamError } from './errors.js';
