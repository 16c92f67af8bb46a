/**
 * Every kind of recommendation, in one registry: the report contract's enum
 * (./report-schema.ts) and the tie-break when two save the same (src/recommend/select.ts)
 * both read it, so a new kind is one entry here. In order of preference on equal savings:
 * isolation first (MIG), then the smaller change.
 */
export const RECOMMENDATION_KINDS = ['mig', 'rightsize', 'mps', 'time-slicing', 'purchase', 'replicas', 'autoscale', 'feed-cpu', 'trim-sidecars'] as const;
