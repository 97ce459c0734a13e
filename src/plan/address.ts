/**
 * Addresses as a plan writes them (`project["acme/api"].badge["docs"]`, `instance.system_hook["..."]`): where one
 * belongs. The renderers group changes by it; the engine reads the group or project a user names by it (`--target`,
 * `--replace`, `explain`).
 */

/** Reads a JSON string literal starting at `start` (which must be a `"`); returns the index after it, or -1. */
function skipJsonString(text: string, start: number): number {
  if (text[start] !== '"') return -1;
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") i++;
    else if (ch === '"') return i + 1;
  }
  return -1;
}

/**
 * The top-level object an address belongs to: `project["acme/api"]` for
 * `project["acme/api"].pipeline_schedule["Nightly"].variable["DEPLOY_ENV"]`, `group["acme/platform"]` for itself,
 * and `instance` for `instance.application_settings` or `instance.system_hook["..."]`.
 */
export function targetOf(address: string): string {
  const name = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(address);
  if (!name) return address;
  let end = name[0].length;
  if (name[0] === "instance") return "instance";
  if (address[end] === "[") {
    const after = skipJsonString(address, end + 1);
    if (after === -1 || address[after] !== "]") return address;
    end = after + 1;
  }
  return address.slice(0, end);
}

/**
 * The group or project an address is or sits below (`project["acme/api"]`, `project["acme/api"].badge["docs"]`):
 * its collection and path, and whether the address is that group or project itself. Undefined for anything else.
 */
export function addressedOwner(
  address: string,
): { collection: "groups" | "projects"; path: string; whole: boolean } | undefined {
  const target = targetOf(address);
  const owner = /^(group|project)\[(".*")\]$/.exec(target);
  if (!owner) return undefined;
  return {
    collection: owner[1] === "group" ? "groups" : "projects",
    path: JSON.parse(owner[2]!) as string,
    whole: target.length === address.length,
  };
}
