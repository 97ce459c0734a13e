/** The kinds the engine manages, with their field declarations read from the manifest schemas. */
import type { FieldSpec } from "../kinds/fields.js";
import type { Kind } from "../kinds/kind.js";

export interface KindRegistry {
  /** The kind stored at `collection` under a parent of collection `parent` (`projects`, `instance`, ...). */
  kind(parent: string, collection: string): Kind | undefined;
  fields(parent: string, collection: string): Map<string, FieldSpec>;
}

export function createRegistry(
  kinds: Kind[],
  fieldsOf: (parent: string, collection: string) => Map<string, FieldSpec>,
): KindRegistry {
  const cache = new Map<string, Map<string, FieldSpec>>();
  return {
    kind: (parent, collection) =>
      kinds.find((k) => k.collection === collection && k.parents.includes(parent)),
    fields(parent, collection) {
      const id = `${parent}.${collection}`;
      let specs = cache.get(id);
      if (!specs) {
        specs = fieldsOf(parent, collection);
        cache.set(id, specs);
      }
      return specs;
    },
  };
}
