/**
 * The shared contracts: what sources observe, the catalog's shape, the report and the check's
 * verdict, the Kubernetes inventory. Types and the few constants that go with them; the saved
 * report's readers (report-reader*.ts) are imported on demand, for they bring zod.
 */
export * from './observations.js';
export * from './sample-domains.js';
export * from './catalog.js';
export * from './report.js';
export * from './report-key-order.js';
export * from './thresholds.js';
export * from './check-report.js';
export * from './kubernetes.js';
export * from './bundle.js';
export * from './aggregates.js';
export * from './gpu-resources.js';
export * from './size-plan.js';
export * from './finding-codes.js';
export * from './recommendation-kinds.js';
export * from './idle.js';
export * from './units.js';
export { InputError, UpstreamError } from '../support/index.js';
