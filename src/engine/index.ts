/** The engine's face: the stage wiring of an audit (and, on it, of a check). */
export { runAudit } from './run-audit.js';
export type { AuditOptions, AuditResult, Provider } from './run-audit.js';
