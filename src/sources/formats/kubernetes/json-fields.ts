/**
 * Tolerant reads of fields of decoded JSON: Kubernetes objects from `kubectl` are well formed,
 * but hand-edited files and manifests leave fields out, so every read may come back undefined.
 */

export type JsonObject = Readonly<Record<string, unknown>>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

export function objectAt(parent: JsonObject | undefined, key: string): JsonObject | undefined {
  return asObject(parent?.[key]);
}

export function arrayAt(parent: JsonObject | undefined, key: string): readonly unknown[] {
  const value = parent?.[key];
  return Array.isArray(value) ? value : [];
}

/** A non-empty string, or undefined. */
export function stringAt(parent: JsonObject | undefined, key: string): string | undefined {
  const value = parent?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A string-to-string map such as metadata.labels; entries whose value is not a string are left out. */
export function stringMapAt(parent: JsonObject | undefined, key: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [name, value] of Object.entries(objectAt(parent, key) ?? {})) {
    if (typeof value === 'string') map[name] = value;
  }
  return map;
}

/**
 * The longest name Kubernetes accepts for a Pod, a Node (DNS-1123 subdomains) and a namespace
 * (a DNS-1123 label). A longer one is no Kubernetes object's: it is not carried into a report.
 */
const MAX_OBJECT_NAME_CHARS = 253;
export const MAX_NAMESPACE_CHARS = 63;

/** metadata.name of a `kind` object; undefined, with a warning, when absent or longer than Kubernetes allows. */
export function objectName(metadata: JsonObject | undefined, kind: string, warn: (message: string) => void): string | undefined {
  const name = stringAt(metadata, 'name');
  if (name === undefined) {
    warn(`${kind} without metadata.name; skipped`);
    return undefined;
  }
  if (name.length > MAX_OBJECT_NAME_CHARS) {
    warn(`${kind} metadata.name of ${name.length} characters, longer than Kubernetes allows (${MAX_OBJECT_NAME_CHARS}); skipped`);
    return undefined;
  }
  return name;
}
