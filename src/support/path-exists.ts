import { stat } from 'node:fs/promises';

/** Whether anything (file, directory, a link to one) is at `target`; unreadable counts as absent. */
export async function pathExists(target: string): Promise<boolean> {
  try {
    await stat(target);
    return true;
  } catch {
    return false;
  }
}
