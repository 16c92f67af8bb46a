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
    spinner = ora({ text: pending, stream: process.stderr }).start();
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
