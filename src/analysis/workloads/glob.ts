/** Shell-style globs for host, pod, namespace and container names: `*` any run, `?` one character; the whole name must match. */

const SPECIAL = /[.+^${}()|[\]\\]/g;

export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(SPECIAL, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${body}$`);
}

export function matchesGlob(glob: string, name: string): boolean {
  return globToRegExp(glob).test(name);
}
