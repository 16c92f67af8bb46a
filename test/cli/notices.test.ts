/** The command-line notice: said once when a report written to a file holds processes' arguments, never otherwise. */
import { describe, expect, it } from 'vitest';
import { commandLineNotice } from '../../src/cli/notices.js';
import type { Report } from '../../src/model/report.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';

function withProcesses(names: string[]): Report {
  const report = structuredClone(SMALL_FLEET);
  report.gpus = report.gpus.map((gpu, index) => ({ ...gpu, processes: index === 0 ? names.map((name, pid) => ({ pid, name, type: 'C', maxMemoryMiB: 1, samples: 1 })) : [] }));
  return report;
}

const TO_FILE = [{ format: 'json' as const, file: 'report.json' }];

describe('commandLineNotice', () => {
  it('counts the distinct command lines with arguments in a report written to a file', () => {
    const report = withProcesses(['python3 train.py --api-key sk-123', 'python3 train.py --api-key sk-123', '/usr/bin/Xorg', 'vllm serve llama']);
    expect(commandLineNotice(report, TO_FILE, {})).toBe(
      'gpu-audit: notice: the report holds 2 command lines of GPU processes with their arguments, which may carry secrets: --redact replaces them by hashes before the report is shared\n',
    );
  });

  it('says nothing with --redact, with -q, to stdout, or for bare executables', () => {
    const report = withProcesses(['python3 train.py --api-key sk-123']);
    expect(commandLineNotice(report, TO_FILE, { redact: true })).toBeUndefined();
    expect(commandLineNotice(report, TO_FILE, { quiet: true })).toBeUndefined();
    expect(commandLineNotice(report, [{ format: 'json', file: undefined }], {})).toBeUndefined();
    expect(commandLineNotice(withProcesses(['/usr/bin/Xorg', 'tritonserver']), TO_FILE, {})).toBeUndefined();
  });
});
