import { NvidiaSmiMissing, nvidiaSmiSnapshot } from '../collect/index.js';
import { InputError } from '../support/index.js';

/** One `nvidia-smi -q -x` snapshot of this machine, for `gpu-audit audit` with no sources: collect's runner, its errors told for audit. */
export async function snapshotThisMachine(): Promise<string> {
  try {
    return await nvidiaSmiSnapshot();
  } catch (error) {
    if (error instanceof NvidiaSmiMissing) {
      throw new InputError('no sources given and nvidia-smi is not installed here: name files to audit (e.g. gpu-audit audit node.xml) or try gpu-audit audit --demo');
    }
    if (error instanceof InputError) throw new InputError(`no sources given and ${error.message}; name files to audit instead`, { cause: error });
    throw error;
  }
}
