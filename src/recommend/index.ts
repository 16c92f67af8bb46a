/**
 * The recommender's public face: the report's GPUs and workloads in, one fleet plan out
 * (./plan/), and the pool sizing behind `gpu-audit size`. Pure: the same report sections and
 * catalog give the same plan, so a report's plan can be redone from its JSON.
 */
export { planFleet } from './plan/index.js';
export type { PlanBasis, PlanInput, PlanOptions, PlanOutcome } from './plan/index.js';
export { DEFAULT_POOL_HEADROOM } from './pool.js';
export { planSize } from './size-plan.js';
export { DEFAULT_RECOMMEND_SETTINGS } from './types.js';
export type { RecommendOptions } from './types.js';
