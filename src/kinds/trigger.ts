/**
 * Pipeline triggers of a project, identified by description. The token is created by the platform: it is never
 * read into the plan, compared or printed. When forgeform creates a trigger and the manifest names a
 * `token_file`, the token is written there (mode 0600) and nowhere else; without it the token is not recorded, and
 * the plan says how to get it (the platform shows it to the trigger's owner).
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { apiPath } from "../api/index.js";
import { ownerPath } from "./common.js";
import type { Kind, Live } from "./kind.js";

interface ApiTrigger {
  id: number;
  description: string;
  token?: string;
}

/** Only the description: the token stays out of every Live object. */
const toLive = (t: ApiTrigger): Live => ({
  key: t.description,
  id: t.id,
  fields: { description: t.description },
});

export const triggerKind: Kind = {
  collection: "triggers",
  segment: "trigger",
  parents: ["projects"],
  updateMode: "update",

  async read(ctx, parent) {
    return (await ctx.api.list<ApiTrigger>(`${ownerPath(parent)}/triggers`)).map(toLive);
  },

  async createReason(_ctx, parent, desired) {
    const file = desired["token_file"];
    if (typeof file === "string")
      return `the new token is written to ${file} (mode 0600) and shown nowhere else`;
    return `the new token is not recorded (no token_file): the trigger's owner sees it in ${parent.key} under Settings > CI/CD > Pipeline triggers`;
  },

  async checkCreate(_ctx, _parent, key, desired) {
    const file = desired["token_file"];
    if (typeof file !== "string") return [];
    const target = resolve(file);
    if (existsSync(target)) {
      return [
        {
          field: "token_file",
          message: `token_file ${target} already exists: forgeform writes a new trigger's token only to a new file, never over another one; remove it (a token for a trigger that no longer exists) or name another file for "${key}"`,
        },
      ];
    }
    if (!existsSync(dirname(target)))
      return [
        {
          field: "token_file",
          message: `token_file ${target}: its directory does not exist; create it first`,
        },
      ];
    return [];
  },

  async create(ctx, parent, desired, key) {
    const created = await ctx.api.post<ApiTrigger>(`${ownerPath(parent)}/triggers`, {
      body: { description: key },
    });
    const file = desired["token_file"];
    if (typeof file === "string" && created.token) {
      // `wx` never overwrites an existing file (it may hold another trigger's token); 0600 keeps it private.
      const target = resolve(file);
      try {
        await writeFile(target, `${created.token}\n`, { mode: 0o600, flag: "wx" });
      } catch (error) {
        const code = (error as { code?: string }).code ?? "error";
        throw new Error(
          `trigger ${JSON.stringify(key)} was created, but its token could not be written to ${target} (${code}): the trigger's owner can read the token in the project's CI/CD settings; remove or fix the file for the next trigger`,
        );
      }
    }
    return toLive(created);
  },

  async update(ctx, parent, live, desired) {
    const updated = await ctx.api.put<ApiTrigger>(`${ownerPath(parent)}${apiPath`/triggers/${live.id!}`}`, {
      body: { description: desired["description"] },
    });
    return toLive(updated);
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${ownerPath(parent)}${apiPath`/triggers/${live.id!}`}`);
  },
};
