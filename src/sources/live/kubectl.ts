/**
 * `--kubectl`: asks the cluster for its pods and nodes through the user's own kubectl (and so
 * its kubeconfig, credentials and plugins). Run through execa with an argument array, never
 * a shell string: a context name cannot inject anything.
 *
 * How it ends: kubectl missing, or a context the kubeconfig does not have, is the user's to
 * fix (InputError, exit 2); a cluster that cannot be reached or refuses is upstream
 * (UpstreamError, exit 3).
 */
import { InputError, UpstreamError } from '../../support/index.js';

export interface KubectlOptions {
  /** `--context` passed to kubectl; default: the kubeconfig's current context. */
  context?: string;
  /** Program to run; default `kubectl` on PATH (tests point it at a fake). */
  executable?: string;
  /** Whole run, ms; kubectl's own `--request-timeout` gets the same budget. */
  timeoutMs?: number;
  /** Stops kubectl (the audit it was run for has failed). */
  signal?: AbortSignal;
}

/** A large cluster's pods and nodes list in seconds; a minute means something is wrong. */
export const KUBECTL_TIMEOUT_MS = 60_000;
/** Lines of kubectl's stderr quoted in an error. */
const STDERR_LINES = 3;

/** stderr lines that say the kubeconfig, not the cluster, is the problem. */
const KUBECONFIG_PROBLEMS = [/context "[^"]*" does not exist/u, /no configuration has been provided/u];

/** The argument array of the query (without the executable). */
export function kubectlArguments(options: Pick<KubectlOptions, 'context' | 'timeoutMs'> = {}): string[] {
  const seconds = Math.ceil((options.timeoutMs ?? KUBECTL_TIMEOUT_MS) / 1000);
  const context = options.context === undefined ? [] : ['--context', options.context];
  return [...context, 'get', 'pods,nodes', '--all-namespaces', '--output', 'json', `--request-timeout=${seconds}s`];
}

/** The ref under which kubectl's answer appears in `sources[]`. */
export function kubectlRef(context: string | undefined): string {
  return context === undefined ? 'kubectl' : `kubectl --context ${context}`;
}

interface ExecaFailure {
  code?: string;
  timedOut?: boolean;
  exitCode?: number;
  stderr?: unknown;
  shortMessage?: string;
}

/**
 * Runs the query and hands kubectl's stdout (JSON text) to `write` as it comes: a large
 * cluster's answer is hundreds of MB, never held whole. When `write` throws (the output is not
 * what was expected), kubectl is stopped and that error is thrown, unless kubectl failed first.
 */
export async function runKubectl(options: KubectlOptions, write: (chunk: string) => void): Promise<void> {
  const executable = options.executable ?? 'kubectl';
  const timeoutMs = options.timeoutMs ?? KUBECTL_TIMEOUT_MS;
  // execa (hundreds of modules) loads only when kubectl is really run.
  const { execa } = await import('execa');
  const subprocess = execa(executable, kubectlArguments(options), {
    timeout: timeoutMs,
    stdin: 'ignore',
    // stdout goes to `write` as it comes; stderr is kept for the error message. kubectl may print
    // warnings (deprecated APIs) on stderr beside a good answer.
    buffer: { stdout: false, stderr: true },
    stripFinalNewline: false,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  let refused: { error: unknown; whileRunning: boolean } | undefined;
  try {
    subprocess.stdout.setEncoding('utf8');
    for await (const chunk of subprocess.stdout) write(chunk as string);
  } catch (error) {
    refused = { error, whileRunning: subprocess.exitCode === null };
    subprocess.kill();
  }
  try {
    await subprocess;
  } catch (error) {
    // Stopped because its output was refused: the refusal says what went wrong. A kubectl that
    // had already failed on its own (printing something else first) says it better.
    if (refused?.whileRunning !== true) throw kubectlFailure(error, executable, timeoutMs, kubectlRef(options.context));
  }
  if (refused !== undefined) throw refused.error;
}

/** What a failed kubectl run means for the user: theirs to fix (InputError) or the cluster's (UpstreamError). */
function kubectlFailure(error: unknown, executable: string, timeoutMs: number, endpoint: string): Error {
  const failure = error as ExecaFailure;
  if (failure.code === 'ENOENT') {
    return new InputError(`--kubectl: ${executable} is not installed or not on PATH; save the output of kubectl get pods,nodes -A -o json and pass it with --k8s FILE`, { cause: error });
  }
  if (failure.timedOut === true) return new UpstreamError(`timed out after ${timeoutMs / 1000} s`, { endpoint, cause: error });
  const stderr = typeof failure.stderr === 'string' ? failure.stderr.trim().split('\n').slice(0, STDERR_LINES).join(' / ') : '';
  const detail = stderr === '' ? (failure.shortMessage ?? String(error)) : stderr;
  if (KUBECONFIG_PROBLEMS.some((pattern) => pattern.test(stderr))) return new InputError(`--kubectl: ${detail}`, { cause: error });
  return new UpstreamError(`kubectl exited with status ${failure.exitCode ?? 'unknown'}: ${detail}`, { endpoint, cause: error });
}
