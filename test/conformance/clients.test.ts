import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { itNeeding } from "../required.js";
import { pythonCase, scriptCase } from "./python-gitlab.js";
import { racadabraMissing, racadabraRunner } from "./racadabra.js";

/**
 * Real third-party clients against the sandbox, each in a fresh in-process sandbox on a free port.
 * A language is skipped (with the reason in the test name) only when its interpreter or client library is absent.
 */
const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

describe("conformance with python-gitlab: groups, projects, users", () => {
  pythonCase({ title: "python-gitlab", script: "groups_projects_users.py" });
});

describe("conformance with real clients (form-encoded and string-typed bodies)", () => {
  scriptCase({ title: "ruby gitlab gem", script: "ruby_gitlab.rb" });
  scriptCase({ title: "Perl GitLab::API::v4", script: "perl_gitlab.pl" });
});

describe("conformance with gitlabracadabra (declarative, applied twice)", () => {
  const missing = racadabraMissing();

  itNeeding(missing)(
    `creates groups, a project, members, shares, labels, pipeline schedules with variables, milestones and application settings, then converges; repairs drift of a label and a member`,
    async () => {
      const sb = await startSandbox({
        adminToken: "racadabra-admin",
        userToken: "racadabra-user",
        fixture: { users: [{ username: "rita" }, { username: "tom" }] },
      });
      const run = racadabraRunner(sb, here("gitlabracadabra.yml"));
      try {
        const first = await run();
        expect(first.code, first.out).toBe(0);
        expect(first.out).toContain("[racadabra] Creating group");
        expect(first.out).toContain("[racadabra/sub/app] Creating project");
        expect(first.out).not.toMatch(/ERROR|Traceback/);
        expect(first.out).not.toContain("Group not found");
        const audit = sb.store.groupByFullPath("audit")!;
        const g = sb.store.groupByFullPath("racadabra")!;
        expect(g).toMatchObject({
          name: "Racadabra",
          visibility: "internal",
          request_access_enabled: false,
          project_creation_level: "maintainer",
          subgroup_creation_level: "owner",
          two_factor_grace_period: 12,
          shared_with_groups: [{ group_id: audit.id, group_access_level: 20, expires_at: null }],
        });
        const app = sb.store.projectByFullPath("racadabra/sub/app")!;
        expect(app).toMatchObject({
          description: "An app",
          issues_enabled: false,
          default_branch: "main",
          shared_with_groups: [{ group_id: audit.id, group_access_level: 30, expires_at: null }],
        });
        const api = async <T>(path: string): Promise<T> => {
          const res = await fetch(`${sb.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": sb.adminToken } });
          expect(res.status, path).toBe(200);
          return (await res.json()) as T;
        };
        const schedules = await api<{ id: number; description: string; cron: string; active: boolean }[]>(
          "/projects/racadabra%2Fsub%2Fapp/pipeline_schedules",
        );
        expect(schedules.map((s) => [s.description, s.cron, s.active]).sort()).toEqual([
          ["Build packages", "0 1 * * 5", true],
          ["Nightly cleanup", "30 2 * * *", false],
        ]);
        const build = schedules.find((s) => s.description === "Build packages")!;
        const detail = await api<{ variables: { key: string; value: string; variable_type: string }[] }>(
          `/projects/racadabra%2Fsub%2Fapp/pipeline_schedules/${build.id}`,
        );
        expect(detail.variables.map((v) => [v.key, v.value, v.variable_type]).sort()).toEqual([
          ["CONFIG_FILE", "some: yaml", "file"],
          ["MY_VAR", "my value", "env_var"],
        ]);
        const milestones = await api<{ title: string; state: string; due_date: string | null }[]>(
          "/projects/racadabra%2Fsub%2Fapp/milestones",
        );
        expect(milestones.map((m) => [m.title, m.state, m.due_date]).sort()).toEqual([
          ["0.9", "active", null],
          ["1.0", "active", "2027-01-23"],
        ]);
        const groupMilestones = await api<{ title: string }[]>("/groups/racadabra/milestones");
        expect(groupMilestones.map((m) => m.title)).toEqual(["Q1"]);
        const settings = await api<Record<string, unknown>>("/application/settings");
        expect(settings).toMatchObject({
          signup_enabled: false,
          default_projects_limit: 50,
          after_sign_out_path: "https://example.org/bye",
          default_group_visibility: "internal",
        });
        const members = async (path: string) =>
          (await api<{ username: string; access_level: number }[]>(`${path}/members`))
            .map((m) => [m.username, m.access_level])
            .sort();
        expect(await members("/groups/racadabra")).toEqual([
          ["rita", 40],
          ["root", 50],
          ["sandbox-user", 30],
        ]);
        expect(await members("/projects/racadabra%2Fsub%2Fapp")).toEqual([
          ["sandbox-user", 40],
          ["tom", 20],
        ]);
        type Label = { name: string; color: string; description: string | null; priority?: number | null };
        const labels = async (path: string) =>
          (await api<(Label & { is_project_label?: boolean })[]>(`${path}/labels`)).map((l) => [
            l.name,
            l.color,
            l.description,
            l.priority ?? null,
            l.is_project_label ?? null,
          ]);
        expect(await labels("/groups/racadabra")).toEqual([
          ["Docs", "#abc", null, null, null],
          ["priority::high", "#FF0000", "Urgent", null, null],
        ]);
        expect(await labels("/projects/racadabra%2Fsub%2Fapp")).toEqual([
          ["Docs", "#abc", null, null, false],
          ["Feature", "#5cb85c", null, null, true],
          ["area::sub", "#00aa00", null, 2, false],
          ["bug", "#d9534f", "Something is wrong", 1, true],
          ["priority::high", "#FF0000", "Urgent", null, false],
        ]);
        const converged = (out: string) =>
          expect(out, out).not.toMatch(
            /\] (Creating|Changing|Adding|Removing|Sharing|Unsharing)|ERROR|Traceback/,
          );
        const second = await run();
        expect(second.code, second.out).toBe(0);
        converged(second.out);
        // Drift made through the API is put back by the next run, which then converges again.
        const write = async (method: string, path: string, body: unknown) => {
          const res = await fetch(`${sb.url}/api/v4${path}`, {
            method,
            headers: { "PRIVATE-TOKEN": sb.adminToken, "Content-Type": "application/json" },
            body: JSON.stringify(body),
          });
          expect(res.status, `${method} ${path}`).toBe(200);
        };
        await write("PUT", "/projects/racadabra%2Fsub%2Fapp/labels/bug", { color: "#000000", priority: 5 });
        const rita = sb.store.userByUsername("rita")!;
        await write("PUT", `/groups/racadabra/members/${rita.id}`, { access_level: 20 });
        const third = await run();
        expect(third.code, third.out).toBe(0);
        expect(third.out).toContain("[racadabra/sub/app] Changing label bug color: #000000 -> #d9534f");
        expect(third.out).toContain("[racadabra/sub/app] Changing label bug priority: 5 -> 1");
        expect(third.out).toContain("[racadabra] Changing user rita (rita) access level: 20 -> 40");
        expect(await labels("/projects/racadabra%2Fsub%2Fapp")).toContainEqual([
          "bug",
          "#d9534f",
          "Something is wrong",
          1,
          true,
        ]);
        converged((await run()).out);
      } finally {
        await sb.stop();
      }
    },
  );
});
