/** Stable exit codes; documented in the README and relied on by CI jobs. */
export const ExitCode = {
  ok: 0,
  /** `check`: a threshold was breached. */
  thresholdBreached: 1,
  /** Bad usage or unreadable input. */
  input: 2,
  /** Prometheus or a cloud API failed after retries. */
  upstream: 3,
  /** A bug in gpu-audit. */
  internal: 4,
} as const;
