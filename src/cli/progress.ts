import type { CliIo } from './io.js';

export interface Progress {
  update(text: string): void;
  stop(): void;
}

const silent: Progress = { update: () => undefined, stop: () => undefined };

/**
 * A spinner on stderr while inputs are read, only on a terminal and never with --quiet,
 * so piped and CI output stay clean. ora is loaded only when a spinner will be shown.
 */
export function startProgress(io: CliIo, quiet: boolean): Progress {
  if (quiet || !io.stderrIsTty || io.env.CI !== undefined) return silent;
  let spinner: { text: string; stop(): void } | undefined;
  let pending = 'reading';
  let stopped = false;
  void import('ora').then(({ default: ora }) => {
    if (stopped) return;
    // discardStdin: false keeps the terminal cooked: in ora's default raw mode Ctrl-C is a byte
    // on stdin instead of SIGINT, and a long read could not be stopped. hideCursor: false keeps
    // restore-cursor's signal-exit hook out: it counts exit hooks, not signal listeners, and so
    // re-raised SIGINT past collect's handler, which must finish the bundle.
    spinner = ora({ text: pending, stream: process.stderr, discardStdin: false, hideCursor: false }).start();
  });
  return {
    update(text) {
      pending = text;
      if (spinner !== undefined) spinner.text = text;
    },
    stop() {
      stopped = true;
      spinner?.stop();
    },
  };
}
