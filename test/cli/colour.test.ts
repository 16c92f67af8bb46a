/** When output is coloured (a terminal, unless NO_COLOR, --no-color, -o or a dumb terminal says no; FORCE_COLOR forces it) and how wide its tables are. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tableWidth, useColor, type CliIo } from '../../src/cli/io.js';

function io(env: NodeJS.ProcessEnv, stdoutIsTty = true): CliIo {
  return { stdout: () => undefined, stderr: () => undefined, stdoutIsTty, stderrIsTty: stdoutIsTty, env, stdin: Readable.from([]) };
}

describe('useColor', () => {
  it.each<[string, NodeJS.ProcessEnv, boolean, { color?: boolean; output?: string }, boolean]>([
    ['a terminal', { TERM: 'xterm-256color' }, true, {}, true],
    ['a pipe', {}, false, {}, false],
    ['TERM=dumb', { TERM: 'dumb' }, true, {}, false],
    ['NO_COLOR', { NO_COLOR: '1' }, true, {}, false],
    ['--no-color', {}, true, { color: false }, false],
    ['-o FILE', {}, true, { output: 'report.txt' }, false],
    ['FORCE_COLOR on a dumb terminal', { TERM: 'dumb', FORCE_COLOR: '1' }, true, {}, true],
    ['FORCE_COLOR into a pipe', { FORCE_COLOR: '1' }, false, {}, true],
  ])('%s', (_, env, tty, options, expected) => {
    expect(useColor(io(env, tty), options)).toBe(expected);
  });
});

describe('tableWidth', () => {
  const terminal = (columns: number | undefined): CliIo => ({ ...io({}), ...(columns === undefined ? {} : { stdoutColumns: columns }) });
  it.each<[string, CliIo, { width?: number; output?: string }, number]>([
    ['an 80-column terminal', terminal(80), {}, 80],
    ['a 160-column terminal', terminal(160), {}, 160],
    ['a 30-column terminal, held at the narrowest table', terminal(30), {}, 60],
    ['a 400-column terminal, held at the widest', terminal(400), {}, 240],
    ['a pipe', io({}, false), {}, 100],
    ['-o FILE on a terminal', terminal(80), { output: 'report.txt' }, 100],
    ['--width over the terminal', terminal(80), { width: 120 }, 120],
  ])('%s', (_, stream, options, expected) => {
    expect(tableWidth(stream, options)).toBe(expected);
  });
});
