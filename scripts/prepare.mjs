// npm's prepare step: builds dist/ after `npm install` in a clone (and before `npm pack`).
// With --omit=dev the build tools (tsx, esbuild, typescript) are not there: say so in one line
// and succeed, so that `npm ci --omit=dev` installs; a packed tarball already carries dist/.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tools = ['tsx', 'esbuild', 'typescript'];
const missing = tools.filter((name) => {
  try {
    require.resolve(`${name}/package.json`);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  console.error(`gpu-audit: ${missing.join(', ')} not installed (dev dependencies omitted): dist/ not built; install with dev dependencies and run npm run build to build it`);
} else {
  const npm = process.env.npm_execpath;
  const [command, args] = npm === undefined ? ['npm', ['run', 'build']] : [process.execPath, [npm, 'run', 'build']];
  execFileSync(command, args, { stdio: 'inherit' });
}
