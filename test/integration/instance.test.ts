import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, expectNoChanges, FIXTURE, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";

interface Hook {
  push_events: boolean;
  tag_push_events: boolean;
  merge_requests_events: boolean;
  enable_ssl_verification: boolean;
}

const HOOK_URL = "https://audit.example.com/hook";

/** A manifest secret reference (`${env:NAME}`), spelled without a template literal. */
const envRef = (name: string) => `$${"{"}env:${name}}`;

function hooks(h: Hook | undefined, policy?: string, token = envRef("HOOK_TOKEN")): string {
  return `version: 1
instance:
  system_hooks:${h ? "" : " []"}
${
  h
    ? `    - url: ${HOOK_URL}\n      token: "${token}"\n${Object.entries(h)
        .map(([k, v]) => `      ${k}: ${v}\n`)
        .join("")}`
    : ""
}${policy ? `  unmanaged:\n    system_hooks: ${policy}\n` : ""}`;
}

interface Message {
  starts_at: string;
  ends_at: string;
  color: string;
  font: string;
  target_path: string;
  broadcast_type: string;
  dismissable: boolean;
}

function messages(m: Message | undefined, policy?: string): string {
  return `version: 1
instance:
  broadcast_messages:${m ? "" : " []"}
${
  m
    ? `    - message: Maintenance on Saturday\n${Object.entries(m)
        .map(([k, v]) => `      ${k}: ${typeof v === "string" ? JSON.stringify(v) : v}\n`)
        .join("")}`
    : ""
}${policy ? `  unmanaged:\n    broadcast_messages: ${policy}\n` : ""}`;
}

describe("instance objects", () => {
  let bench: Bench;
  const env = { HOOK_TOKEN: "hook-secret-value-1" };
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("system hooks: lifecycle; every change is a replacement; the token is never printed", async () => {
    const base: Hook = {
      push_events: true,
      tag_push_events: false,
      merge_requests_events: false,
      enable_ssl_verification: true,
    };
    const saved = process.env["HOOK_TOKEN"];
    process.env["HOOK_TOKEN"] = env.HOOK_TOKEN;
    try {
      await lifecycle({
        bench,
        address: `instance.system_hook["${HOOK_URL}"]`,
        render: (v, policy) => hooks(v, policy),
        base,
        edits: [
          { values: { ...base, push_events: false }, fields: ["push_events"], action: "replace" },
          {
            values: { ...base, push_events: false, tag_push_events: true },
            fields: ["tag_push_events"],
            action: "replace",
          },
          {
            values: { ...base, push_events: false, tag_push_events: true, merge_requests_events: true },
            fields: ["merge_requests_events"],
            action: "replace",
          },
          {
            values: {
              push_events: false,
              tag_push_events: true,
              merge_requests_events: true,
              enable_ssl_verification: false,
            },
            fields: ["enable_ssl_verification"],
            action: "replace",
          },
        ],
        without: (policy) => hooks(undefined, policy),
        read: async () =>
          (await bench.get<Record<string, unknown>[]>("/hooks")).filter((h) => h["url"] === HOOK_URL),
        expected: (v) => ({ ...v }),
      });
      // Rotation: the token is write-only, so a new value is not drift; --replace sends it.
      const file = bench.manifest(hooks(base));
      await apply(bench, file);
      process.env["HOOK_TOKEN"] = "hook-secret-value-2";
      await expectNoChanges(bench, file);
      const rotate = await bench.cli([
        "apply",
        "--yes",
        "--replace",
        `instance.system_hook["${HOOK_URL}"]`,
        file,
      ]);
      expect(rotate.code).toBe(0);
      expect(rotate.out).toContain("replacement requested with --replace");
      expect(rotate.out + rotate.err).not.toContain("hook-secret-value");
    } finally {
      if (saved === undefined) delete process.env["HOOK_TOKEN"];
      else process.env["HOOK_TOKEN"] = saved;
    }
  });

  it("broadcast messages: lifecycle, times compared as instants", async () => {
    const base: Message = {
      starts_at: "2026-12-05T08:00:00Z",
      ends_at: "2026-12-05T12:00:00Z",
      color: "#E75E40",
      font: "#FFFFFF",
      target_path: "/dashboard",
      broadcast_type: "banner",
      dismissable: false,
    };
    await lifecycle({
      bench,
      address: 'instance.broadcast_message["Maintenance on Saturday"]',
      render: (v, policy) => messages(v, policy),
      base,
      edits: [
        { values: { ...base, starts_at: "2026-12-05T07:00:00Z" }, fields: ["starts_at"] },
        {
          values: { ...base, starts_at: "2026-12-05T07:00:00Z", ends_at: "2026-12-05T13:00:00Z" },
          fields: ["ends_at"],
        },
        {
          values: {
            ...base,
            starts_at: "2026-12-05T07:00:00Z",
            ends_at: "2026-12-05T13:00:00Z",
            color: "#112233",
          },
          fields: ["color"],
        },
        {
          values: {
            ...base,
            starts_at: "2026-12-05T07:00:00Z",
            ends_at: "2026-12-05T13:00:00Z",
            color: "#112233",
            font: "#000000",
          },
          fields: ["font"],
        },
      ],
      without: (policy) => messages(undefined, policy),
      read: async () =>
        (await bench.get<Record<string, unknown>[]>("/broadcast_messages")).filter(
          (m) => m["message"] === "Maintenance on Saturday",
        ),
      expected: (v) => ({
        starts_at: expect.stringMatching(new RegExp(`^${v.starts_at.slice(0, 19)}`)),
        ends_at: expect.stringMatching(new RegExp(`^${v.ends_at.slice(0, 19)}`)),
        color: expect.stringMatching(new RegExp(`^${v.color}$`, "i")),
        font: expect.stringMatching(new RegExp(`^${v.font}$`, "i")),
        target_path: v.target_path,
        broadcast_type: v.broadcast_type,
        dismissable: v.dismissable,
      }),
    });
    const file = bench.manifest(messages(base));
    await apply(bench, file);
    // The same instants written with an offset and lower-case colours: no changes.
    await expectNoChanges(
      bench,
      bench.manifest(
        messages({
          ...base,
          starts_at: "2026-12-05T09:00:00+01:00",
          ends_at: "2026-12-05T13:00:00+01:00",
          color: "#e75e40",
          font: "#ffffff",
        }),
      ),
    );
    const moved = await planJson(
      bench,
      bench.manifest(
        messages({ ...base, target_path: "/projects", broadcast_type: "notification", dismissable: true }),
      ),
    );
    expectChanges(moved, [
      {
        address: 'instance.broadcast_message["Maintenance on Saturday"]',
        action: "update",
        fields: ["broadcast_type", "dismissable", "target_path"],
      },
    ]);
  });

  it("application settings: only declared keys; partners sent together; restart flagged; write-only never drift", async () => {
    const settings = (body: string) => `version: 1\ninstance:\n  application_settings:\n${body}`;
    const first = bench.manifest(
      settings(
        "    signup_enabled: false\n    default_projects_limit: 50\n    domain_whitelist: [example.com, example.org]\n",
      ),
    );
    expectChanges(await planJson(bench, first), [
      {
        address: "instance.application_settings",
        action: "update",
        fields: ["default_projects_limit", "domain_whitelist", "signup_enabled"],
      },
    ]);
    await apply(bench, first);
    await expectNoChanges(bench, first);
    // Lists compare without regard to order where the schema says they are sets.
    await expectNoChanges(
      bench,
      bench.manifest(
        settings(
          "    signup_enabled: false\n    default_projects_limit: 50\n    domain_whitelist: [example.org, example.com]\n",
        ),
      ),
    );

    const saved = process.env["PROXY_SECRET"];
    process.env["PROXY_SECRET"] = "proxy-secret-1";
    try {
      const proxy = bench.manifest(
        settings(
          '    asset_proxy_enabled: true\n    asset_proxy_url: https://proxy.example.com\n    asset_proxy_secret_key: "' +
            envRef("PROXY_SECRET") +
            '"\n',
        ),
      );
      const plan = await planJson(bench, proxy);
      const change = plan.changes[0]!;
      expect(change.fields.map((f) => f.field).sort()).toEqual(["asset_proxy_enabled", "asset_proxy_url"]);
      const text = await bench.cli(["plan", proxy]);
      expect(text.out).toContain("restart");
      await apply(bench, proxy);
      await expectNoChanges(bench, proxy);
      const live = await bench.get<Record<string, unknown>>("/application/settings");
      expect(live["asset_proxy_enabled"]).toBe(true);
      expect(live).not.toHaveProperty("asset_proxy_secret_key");
      process.env["PROXY_SECRET"] = "proxy-secret-2";
      await expectNoChanges(bench, proxy);
    } finally {
      if (saved === undefined) delete process.env["PROXY_SECRET"];
      else process.env["PROXY_SECRET"] = saved;
    }
  });

  it("a licensed setting on the core edition is a clear plan error for that key", async () => {
    const core = await Bench.start({ fixture: FIXTURE, edition: "core" });
    try {
      const r = await core.cli([
        "plan",
        core.manifest(
          "version: 1\ninstance:\n  application_settings:\n    signup_enabled: false\n    check_namespace_plan: true\n",
        ),
      ]);
      expect(r.code).toBe(1);
      const text = r.out.replace(/\s+/g, " ");
      expect(text).toContain("instance.application_settings.check_namespace_plan");
      expect(text).toContain("exists only on the licensed edition");
    } finally {
      await core.stop();
    }
  });
});

describe("application settings: the performance bar's group", () => {
  it("is a plan error at its place when no group has that path", async () => {
    const bench = await Bench.start({ fixture: FIXTURE });
    try {
      const missing = bench.manifest(
        "version: 1\ninstance:\n  application_settings:\n    performance_bar_allowed_group_path: acme/nosuch\n",
        "bar.yaml",
      );
      const plan = await bench.cli(["plan", missing]);
      expect(plan.code).toBe(1);
      expect(plan.out.replace(/\s+/g, " ")).toContain(
        `${missing}:4:41: instance.application_settings.performance_bar_allowed_group_path: group "acme/nosuch" does not exist (or is not visible to this token's user)`,
      );
    } finally {
      await bench.stop();
    }
  });

  it("is left as it is by an update of another setting", async () => {
    const bench = await Bench.start({ fixture: FIXTURE });
    try {
      await bench.send("PUT", "/application/settings", { performance_bar_allowed_group_path: "acme" });
      const group = await bench.get<{ id: number }>("/groups/acme");
      const file = bench.manifest(
        "version: 1\ninstance:\n  application_settings:\n    signup_enabled: false\n",
        "signup.yaml",
      );
      await apply(bench, file);
      const live = await bench.get<Record<string, unknown>>("/application/settings");
      expect(live).toMatchObject({ signup_enabled: false, performance_bar_allowed_group_id: group.id });
    } finally {
      await bench.stop();
    }
  });
});
