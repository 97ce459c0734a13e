/**
 * `forgeform explain` as text: the effective configuration of one group or project, each field, item and prune
 * policy followed by the entry and the manifest place it came from. Secret values appear masked.
 */
import type { DesiredNode } from "../manifest/model.js";
import { isSecret } from "../manifest/secret.js";
import type { Explained, LeftOut, Origin } from "../manifest/selectors.js";
import { sourceLabel } from "./common.js";

function value(v: unknown): string {
  if (isSecret(v)) return v.shown;
  if (Array.isArray(v) || (v !== null && typeof v === "object"))
    // A replacer sees what toJSON returned (a Secret's bare mask): the holder's own value shows what is around it.
    return JSON.stringify(v, function (this: unknown, k, x: unknown) {
      const own = (this as Record<string, unknown>)[k];
      return isSecret(own) ? own.shown : x;
    });
  return JSON.stringify(v);
}

const COLUMN = 56;

function line(indent: string, text: string, origin: Origin | undefined): string {
  const left = `${indent}${text}`;
  if (!origin) return left;
  return `${left.padEnd(COLUMN)} # ${origin.entry} ${sourceLabel(origin.source)}`;
}

function nodeLines(node: DesiredNode, prefix: string, indent: string, explained: Explained): string[] {
  const lines: string[] = [];
  for (const [field, v] of Object.entries(node.fields)) {
    const key = `${prefix}${field}`;
    const written = explained.hashed.get(key);
    lines.push(
      line(
        indent,
        `${field}: ${value(v)}${written ? ` (written ${JSON.stringify(written)})` : ""}`,
        explained.origins.get(key),
      ),
    );
  }
  for (const [name, coll] of Object.entries(node.children)) {
    lines.push(`${indent}${name}:`);
    for (const item of coll.items) {
      const label = item.label ?? item.key;
      const at = `${prefix}${name}[${JSON.stringify(label)}]`;
      const head = coll.items.length === 1 && item.key === name ? "(settings)" : `- ${label}`;
      lines.push(
        line(
          `${indent}  `,
          `${head}${item.state === "absent" ? ": absent (deleted)" : ""}`,
          explained.origins.get(at),
        ),
      );
      if (item.state !== "absent") lines.push(...nodeLines(item, `${at}.`, `${indent}      `, explained));
    }
    if (coll.policyDeclared) {
      lines.push(
        line(
          `${indent}  `,
          `unmanaged ${name}: ${coll.policy}`,
          explained.origins.get(`${prefix}unmanaged.${name}`),
        ),
      );
    }
  }
  return lines;
}

/** `projects["acme/**"] leaves it out (except: acme/legacy/** at policy.yaml:4:13)`. */
export function leftOutText(l: LeftOut): string {
  return `${l.entry} leaves it out (except: ${l.except} at ${sourceLabel(l.source)})`;
}

export function renderExplainText(explained: Explained): string {
  const kind = explained.collection === "groups" ? "group" : "project";
  const lines = [
    `${kind} ${JSON.stringify(explained.path)}`,
    `Entries that apply, from the least to the most specific: ${explained.entries
      .map((e) => `${e.entry} (${sourceLabel(e.source)})`)
      .join(", ")}`,
    ...(explained.leftOut.length > 0
      ? [`Left out by except: ${explained.leftOut.map(leftOutText).join("; ")}`]
      : []),
    "",
    ...nodeLines(explained.node, "", "", explained),
  ];
  if (
    explained.collection === "projects" &&
    explained.entries.some((e) => !e.entry.endsWith(`${JSON.stringify(explained.path)}]`))
  ) {
    lines.push(
      "",
      "Patterns apply to existing projects only, and leave out archived ones unless include_archived: true.",
    );
  }
  return `${lines.join("\n")}\n`;
}
