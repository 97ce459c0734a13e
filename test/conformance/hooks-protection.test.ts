import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { itNeeding } from "../required.js";
import { pythonCase } from "./python-gitlab.js";
import { racadabraMissing, racadabraRunner } from "./racadabra.js";

describe("conformance: python-gitlab hooks, protected branches and tags, deploy tokens", () => {
  pythonCase({
    title: "project hooks and group hooks (licensed)",
    script: "project_group_hooks.py",
    sandbox: { edition: "licensed" },
  });
  pythonCase({
    title: "protected branches and tags (licensed)",
    script: "protected_refs.py",
    sandbox: { edition: "licensed" },
  });
  pythonCase({ title: "deploy tokens", script: "deploy_tokens.py" });
});

describe("conformance with gitlabracadabra: its own protected branches, tags and webhooks (applied twice)", () => {
  const missing = racadabraMissing();
  const fixture = {
    groups: [{ path: "guarded", visibility: "private" }],
    projects: [{ path: "guarded/app", visibility: "private", default_branch: "main" }],
    protected_branches: [{ project: "guarded/app", name: "legacy", push_access_level: 30 }],
    protected_tags: [{ project: "guarded/app", name: "old-*" }],
    project_hooks: [{ project: "guarded/app", url: "https://old.example.com/hook" }],
  };

  itNeeding(missing)(
    `protects branches and tags, adds webhooks, removes what it does not name, then converges`,
    async () => {
      const sb = await startSandbox({ adminToken: "racadabra-admin", userToken: "racadabra-user", fixture });
      const run = racadabraRunner(sb, fileURLToPath(new URL("gitlabracadabra-protect.yml", import.meta.url)));
      const api = async <T>(path: string): Promise<T> => {
        const res = await fetch(`${sb.url}/api/v4/projects/guarded%2Fapp${path}`, {
          headers: { "PRIVATE-TOKEN": sb.adminToken },
        });
        expect(res.status, path).toBe(200);
        return (await res.json()) as T;
      };
      try {
        const first = await run();
        expect(first.code, first.out).toBe(0);
        expect(first.out).not.toMatch(/ERROR|Traceback|Unable/);
        expect(first.out).toContain("[guarded/app] Changing protected branch main access level");
        expect(first.out).toContain("[guarded/app] Deleting unknown protected branch: legacy");
        expect(first.out).toContain("[guarded/app] Deleting unknown protected tag: old-*");
        expect(first.out).toContain("[guarded/app] Adding webhook https://ci.example.com/hook");
        expect(first.out).toContain("[guarded/app] Removing webhook https://old.example.com/hook");

        type Level = { access_level: number };
        const branches =
          await api<{ name: string; push_access_levels: Level[]; merge_access_levels: Level[] }[]>(
            "/protected_branches",
          );
        expect(
          branches
            .map((b) => [
              b.name,
              b.push_access_levels[0]!.access_level,
              b.merge_access_levels[0]!.access_level,
            ])
            .sort(),
        ).toEqual([
          ["main", 0, 40],
          ["release/*", 40, 30],
        ]);
        const tags = await api<{ name: string; create_access_levels: Level[] }[]>("/protected_tags");
        expect(tags.map((t) => [t.name, t.create_access_levels[0]!.access_level]).sort()).toEqual([
          ["*", 30],
          ["v*", 40],
        ]);
        const hooks = await api<Record<string, unknown>[]>("/hooks");
        expect(hooks.map((h) => h["url"]).sort()).toEqual([
          "https://chat.example.com/notify",
          "https://ci.example.com/hook",
        ]);
        expect(hooks.find((h) => h["url"] === "https://ci.example.com/hook")).toMatchObject({
          push_events: true,
          push_events_branch_filter: "main",
          issues_events: true,
          merge_requests_events: true,
          tag_push_events: true,
          note_events: false,
          confidential_note_events: false,
          job_events: true,
          pipeline_events: true,
          wiki_page_events: false,
        });
        expect(hooks.find((h) => h["url"] === "https://chat.example.com/notify")).toMatchObject({
          push_events: false,
          issues_events: true,
        });

        const second = await run();
        expect(second.code, second.out).toBe(0);
        expect(second.out, second.out).not.toMatch(/Changing|Adding|Removing|Deleting|Creating|NOT|Unable/);
      } finally {
        await sb.stop();
      }
    },
  );
});
