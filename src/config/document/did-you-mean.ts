/**
 * "Did you mean" for unknown keys: the keys the schema allows at the same place, and the one
 * closest to what was typed (support's closestKey).
 */
import type { z } from 'zod';


/** Internal definition fields of the zod 4 schema types this walk passes through. */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  keyType?: z.ZodType;
  entries?: Record<string, string>;
  in?: z.ZodType;
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** Wrappers that hold one inner schema (optional, default, refinements as pipes, ...). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (inner === undefined) return current;
    current = inner;
  }
}

/** The keys an object schema (or a record keyed by an enum) at `path` allows; empty when the path leads elsewhere. */
export function knownKeysAt(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType | undefined = unwrap(root);
  for (const segment of path) {
    if (schema === undefined) return [];
    const def = defOf(schema);
    const next: z.ZodType | undefined =
      def.type === 'object' ? def.shape?.[String(segment)]
        : def.type === 'array' ? def.element
          : def.type === 'record' ? def.valueType
            : undefined;
    schema = next === undefined ? undefined : unwrap(next);
  }
  if (schema === undefined) return [];
  const def = defOf(schema);
  if (def.type === 'record' && def.keyType !== undefined) {
    const key = defOf(unwrap(def.keyType));
    return key.type === 'enum' ? Object.values(key.entries ?? {}) : [];
  }
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}
