export { planFleet } from './planner.js';
export type { PlanInput, PlanOptions, PlanOutcome } from './types.js';
export type { PlanBasis } from './demand.js';
