import { InputError } from '../model/errors.js';

/** nvidia-smi answers in well under a second; a hung driver must not hang the audit. */
const NVIDIA_SMI_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** One `nvidia-smi -q -x` snapshot of this machine, for `gpu-audit audit` with no sources. */
export async function snapshotThisMachine(): Promise<string> {
  // execa is loaded only here: audits of files never need it, and it costs ~100 ms at start-up.
  const { execa } = await import('execa');
  try {
    const result = await execa('nvidia-smi', ['-q', '-x'], {
      timeout: NVIDIA_SMI_TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT_BYTES,
      stripFinalNewline: false,
    });
    return result.stdout;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') {
      throw new InputError('no sources given and nvidia-smi is not installed here: name files to audit (e.g. gpu-audit audit node.xml) or try gpu-audit audit --demo');
    }
    const shortMessage = (error as { shortMessage?: string }).shortMessage ?? String(error);
    throw new InputError(`no sources given and nvidia-smi failed on this machine (${shortMessage}); name files to audit instead`);
  }
}
