/**
 * docs/cli.md, made from the commands' own definitions: every command's `--help`, as the CLI
 * prints it off a terminal (80 columns). One source for help text and reference, so the two
 * cannot drift; test/docs/cli-reference.test.ts fails when the file is stale.
 */
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram, runCli } from '../src/cli/program.js';
import type { CliIo } from '../src/cli/io.js';

export const CLI_REFERENCE_FILE = 'docs/cli.md';

function quietIo(written: string[]): CliIo {
  return { stdout: (text) => written.push(text), stderr: () => undefined, stdoutIsTty: false, stderrIsTty: false, env: {}, stdin: Readable.from([]) };
}

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

async function helpOf(path: readonly string[]): Promise<string> {
  const written: string[] = [];
  const code = await runCli([...path, '--help'], quietIo(written));
  if (code !== 0) throw new Error(`gpu-audit ${path.join(' ')} --help exited ${code}`);
  return written.join('').trimEnd();
}

export async function cliReference(): Promise<string> {
  const paths = [[], ...commandPaths(buildProgram(quietIo([]), () => undefined))];
  const sections: string[] = [];
  for (const path of paths) {
    const name = ['gpu-audit', ...path].join(' ');
    sections.push(`## ${name}`, '', '```text', await helpOf(path), '```', '');
  }
  return [
    '# Command reference',
    '',
    'Every command\'s `--help`, generated from the commands\' definitions by `npm run docs`',
    '(scripts/build-cli-reference.ts). The pages beside this one say what the options do.',
    '',
    ...paths.map((path) => {
      const name = ['gpu-audit', ...path].join(' ');
      return `- [\`${name}\`](#${name.replace(/ /gu, '-')})`;
    }),
    '',
    ...sections,
  ].join('\n');
}
