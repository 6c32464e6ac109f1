/**
 * Every `+k8s:` tag tollgate interprets, by name, and the dispatch of one tag to its function. A tag is one
 * function in the file of its kind plus its entry in that file's table; the tables are merged here.
 *
 * Tags that configure validation-gen or other generators are skipped; a tag nobody defines is a warning where it is
 * written (validation-gen ignores unknown tags) and an error as a payload (validation-gen fails on it).
 */
import { TagCall, type TagDefinition, type TagHost, type TagSite, type TagTable } from "./context.js";
import { LIST_TAGS } from "./lists.js";
import { MARKER_TAGS } from "./markers.js";
import { PRESENCE_TAGS } from "./presence.js";
import { SCALAR_TAGS } from "./scalars.js";
import { SELECTOR_TAGS } from "./selectors.js";
import { STRUCT_WIDE_TAGS } from "./struct-wide.js";
import type { Tag } from "./syntax.js";
import { TESTING_TAGS } from "./testing.js";
import { UPDATE_TAGS } from "./updates.js";
import { WRAPPER_TAGS } from "./wrappers.js";

const TABLES: readonly TagTable[] = [
  WRAPPER_TAGS,
  PRESENCE_TAGS,
  SCALAR_TAGS,
  LIST_TAGS,
  SELECTOR_TAGS,
  UPDATE_TAGS,
  STRUCT_WIDE_TAGS,
  MARKER_TAGS,
  TESTING_TAGS,
];

/** Every table's tags; a name defined twice is a programming error, caught when the module loads. */
const TAGS: ReadonlyMap<string, TagDefinition> = (() => {
  const tags = new Map<string, TagDefinition>();
  for (const table of TABLES) {
    for (const [name, d] of Object.entries(table)) {
      if (tags.has(name)) throw new Error(`+k8s:${name} is defined by two tag tables`);
      tags.set(name, d);
    }
  }
  return tags;
})();

/** The definition of a tag by its name without `k8s:`. */
export function tagDefinition(name: string): TagDefinition | undefined {
  return TAGS.get(name);
}

/** The k8s: tags that are generator configuration or other generators' business: no runtime meaning. */
function isGeneratorTag(name: string): boolean {
  return (
    /-gen(:|$|-)/.test(name) ||
    name.startsWith("k8s:validation-gen") ||
    name === "k8s:protobuf" ||
    name.startsWith("k8s:openapi") ||
    name === "k8s:prerelease-lifecycle-gen" ||
    name.startsWith("k8s:deepcopy")
  );
}

/** Compiles one tag at a site (validators, groups and flags go into `site.acc`; problems onto the scope's unit). */
export function compileTag(host: TagHost, tag: Tag, site: TagSite): void {
  if (!tag.name.startsWith("k8s:") || isGeneratorTag(tag.name)) return;
  const call = new TagCall(host, tag, site);
  const d = TAGS.get(call.name);
  if (d?.compile !== undefined) d.compile(call);
  else if (d?.member !== undefined)
    call.problem("can only be used on struct fields (or list items selected with +k8s:item)");
  else if (site.nested) call.problem(`unknown tag +${tag.name}`);
  else call.problem(`unknown tag +${tag.name}: ignored (validation-gen ignores unknown tags)`, "warning");
}
