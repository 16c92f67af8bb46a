/** One contract object: its `$defs` name, its keys in order, and its nested contract objects. */
export interface ContractNode {
  /** Name of the matching definition in the schema's `$defs` (`Report` is the schema root). */
  definition: string;
  keys: readonly string[];
  /** Keys declared `key?:` in the interface: absent rather than null when unknown. */
  optional: readonly string[];
  /** Keys whose value (or whose array items) is itself a contract object. */
  nested: Readonly<Record<string, ContractNode | undefined>>;
}
