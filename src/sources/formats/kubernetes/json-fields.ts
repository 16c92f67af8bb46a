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
