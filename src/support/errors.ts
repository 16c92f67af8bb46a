/**
 * Known failures are typed; the CLI's single top-level handler decides how they end
 * (exit 2 for input, 3 for upstream, anything else is a bug). Nothing below the CLI
 * prints or exits.
 */

/** Bad usage or bad input: which file, where in it, and what was expected. Exit code 2. */
export class InputError extends Error {
  readonly file: string | undefined;
  readonly location: string | undefined;

  constructor(message: string, options: { file?: string; location?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InputError';
    this.file = options.file;
    this.location = options.location;
  }

  /** One line for the user: `file: location: message`. */
  describe(): string {
    return [this.file, this.location, this.message].filter((part) => part !== undefined && part !== '').join(': ');
  }
}

/** An upstream service (Prometheus, a cloud API) failed after retries. Exit code 3. */
export class UpstreamError extends Error {
  readonly endpoint: string;
  readonly status: number | undefined;

  constructor(message: string, options: { endpoint: string; status?: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamError';
    this.endpoint = options.endpoint;
    this.status = options.status;
  }

  describe(): string {
    const status = this.status === undefined ? '' : ` (HTTP ${this.status})`;
    return maskUrlCredentials(`${this.endpoint}${status}: ${this.message}`);
  }
}

/**
 * `scheme://user:password@host` with the user and password hidden: an endpoint from the
 * environment (a proxy, `GPU_AUDIT_AWS_ENDPOINT`, a Prometheus URL) may carry them.
 */
export function maskUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/giu, '$1[redacted]@');
}
