/** Library entry: the audit pipeline and the report contract, for embedding gpu-audit. */
export { runAudit, type AuditOptions, type AuditResult, type Provider } from './engine/index.js';
export * from './model/index.js';
