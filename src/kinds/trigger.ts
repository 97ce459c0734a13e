/**
 * Pipeline triggers of a project, identified by description. The token is created by the platform: it is never
 * read into the plan, compared or printed. When forgeform creates a trigger and the manifest names a
 * `token_file`, the token is written there (mode 0600) and nowhere else, as a new file or in place of an earlier
 * token (so `--replace` rotates it), never over any other file; without it the token is not recorded, and the plan
 * says how to get it (the platform shows it to the trigger's owner).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { chmod, rename, rm, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { apiPath } from "../api/index.js";
import { ownerPath } from "./common.js";
import type { Kind, Live } from "./kind.js";

interface ApiTrigger {
  id: number;
  description: string;
  token?: string;
}

/** True when the file holds nothing but a trigger token (an earlier token of this trigger, being rotated). */
function holdsOnlyAToken(path: string): boolean {
  try {
    if (statSync(path).size > 256) return false;
    return /^(glptt-)?[0-9a-zA-Z_-]{20,64}$/.test(readFileSync(path, "utf8").trim());
  } catch {
    return false;
  }
}

/** Writes the token readable by its owner only: a new file, or in place of an old token, atomically. */
async function writeToken(target: string, token: string): Promise<void> {
  const temp = `${target}.${process.pid}.tmp`;
  await writeFile(temp, `${token}\n`, { mode: 0o600, flag: "wx" });
  try {
    await chmod(temp, 0o600);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
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
    if (existsSync(target) && !holdsOnlyAToken(target)) {
      return [
        {
          field: "token_file",
          message: `token_file ${target} exists and holds something other than a trigger token: forgeform writes a new token only to a new file or over an old token, never over another file; remove it or name another file for "${key}"`,
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
    const file = desired["token_file"];
    const target = typeof file === "string" ? resolve(file) : undefined;
    // Checked again here, just before the token exists: only a new file or an old token is ever written over.
    if (target && existsSync(target) && !holdsOnlyAToken(target)) {
      throw new Error(
        `token_file ${target} holds something other than a trigger token: not creating trigger ${JSON.stringify(key)}, whose token would have nowhere to go; remove the file or name another one`,
      );
    }
    const created = await ctx.api.post<ApiTrigger>(`${ownerPath(parent)}/triggers`, {
      body: { description: key },
    });
    if (target && created.token) {
      try {
        await writeToken(target, created.token);
      } catch (error) {
        const code = (error as { code?: string }).code ?? "error";
        throw new Error(
          `trigger ${JSON.stringify(key)} was created, but its token could not be written to ${target} (${code}): the trigger's owner can read the token in the project's CI/CD settings`,
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
