/**
 * A pull request that removes declarations, over HTTP: what the merged apply would change, and what becomes
 * unmanaged, shows in its plan (`--changed-since`) as in the full plan. Each case here is one the property test
 * (changed-since-properties.test.ts) found: an entry or a more specific pattern removed where a broader pattern
 * still applies (its settings then show), and subgroups a change leaves undeclared.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const fixture = {
  groups: ["a", "a/g", "a/h"].map((path) => ({ path, description: "live" })),
  projects: ["a/p", "a/g/p"].map((path) => ({ path, description: "live" })),
};

const REF = `version: 1
groups:
  a: { description: top }
  a/g: { description: sub }
  a/h: { description: other }
projects:
  a/**: { description: broad }
  a/g/*: { description: narrow }
  a/p: { description: own }
`;

describe("--changed-since when declarations are removed", () => {
  let bench: Bench;
  let repo: string;
  beforeEach(async () => {
    bench = await Bench.start({ fixture });
    repo = mkdtempSync(join(tmpdir(), "forgeform-removals-"));
    writeFileSync(join(repo, "m.yaml"), REF);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "ref");
    const applied = await bench.cli(["apply", "--yes", repo]);
    expect(applied.code, applied.out + applied.err).toBe(0);
  });
  afterEach(async () => {
    await bench.stop();
  });

  /** Writes `text` as the manifests, commits it as the new REF and, with `apply`, applies it. */
  const rebase = async (text: string, apply = false) => {
    writeFileSync(join(repo, "m.yaml"), text);
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "base"], {
      cwd: repo,
    });
    if (!apply) return;
    const applied = await bench.cli(["apply", "--yes", repo]);
    expect(applied.code, applied.out + applied.err).toBe(0);
  };

  /** The pull request's plan and the full plan of `head`, as `action address` lines; they must agree. */
  const plans = async (head: string) => {
    writeFileSync(join(repo, "m.yaml"), head);
    const lines = async (args: string[]) => {
      const run = await bench.cli(["plan", "--format", "json", ...args, repo]);
      expect(run.code, run.err).toBe(0);
      return (JSON.parse(run.out) as PlanV1).changes
        .map(
          (c) =>
            `${c.action} ${c.address}${c.fields.map((f) => ` ${f.field}=${JSON.stringify(f.after)}`).join("")}`,
        )
        .sort();
    };
    const since = await lines(["--changed-since", "HEAD"]);
    expect(since).toEqual(await lines([]));
    return since;
  };

  it("an entry removed under a pattern: the pattern's settings are planned", async () => {
    expect(await plans(REF.replace("  a/p: { description: own }\n", ""))).toEqual([
      'update project["a/p"] description="broad"',
    ]);
  });

  it("a more specific pattern removed: the broader one's settings are planned", async () => {
    expect(await plans(REF.replace("  a/g/*: { description: narrow }\n", ""))).toEqual([
      'update project["a/g/p"] description="broad"',
    ]);
  });

  it("a subgroup's entry removed: it is reported unmanaged, left alone", async () => {
    expect(await plans(REF.replace("  a/g: { description: sub }\n", ""))).toEqual(['unmanaged group["a/g"]']);
  });

  it("the policy over undeclared subgroups changed: every declared group's are reported", async () => {
    const quiet = `${REF.replace("  a/h: { description: other }\n", "")}instance:\n  unmanaged: { groups: ignore }\n`;
    await rebase(quiet);
    // Nothing else changed: a/h, below the untouched group a, is reported again.
    expect(await plans(quiet.replace("instance:\n  unmanaged: { groups: ignore }\n", ""))).toEqual([
      'unmanaged group["a/h"]',
    ]);
  });

  it("a subgroup declared in another case than the platform's is not taken for an undeclared one", async () => {
    const spelled = REF.replace("  a/g: { description: sub }\n", "  A/G: { description: sub }\n");
    // The same group, spelled otherwise: nothing to change.
    expect(await plans(spelled)).toEqual([]);
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "case"], {
      cwd: repo,
    });
    // a/h's entry removed: a's subgroups are listed, A/G among them, declared.
    expect(await plans(spelled.replace("  a/h: { description: other }\n", ""))).toEqual([
      'unmanaged group["a/h"]',
    ]);
  });

  it("a share declared in another case than the platform's, in an entry the change leaves alone, is no undeclared one", async () => {
    const base = REF.replace(
      "  a/g: { description: sub }\n",
      "  a/g:\n    description: sub\n    shared_with_groups: [{ group: A/H, group_access: guest }]\n  a/*:\n    unmanaged: { shared_with_groups: delete }\n",
    );
    await rebase(base, true);
    // The pattern that set the policy removed: a/g's shares are planned again (under the default policy), the one
    // declared A/H among them.
    expect(await plans(base.replace("  a/*:\n    unmanaged: { shared_with_groups: delete }\n", ""))).toEqual(
      [],
    );
  });

  it("an entry drops an item a pattern declares in another case: the pattern's is planned", async () => {
    const base = REF.replace(
      "  a/**: { description: broad }\n",
      '  a/**:\n    description: broad\n    shared_with_groups: [{ group: a/h, group_access: guest, expires_at: "2031-06-30" }]\n',
    ).replace(
      "  a/p: { description: own }\n",
      '  a/p:\n    description: own\n    shared_with_groups: [{ group: A/H, group_access: guest, expires_at: "2030-01-31" }]\n',
    );
    await rebase(base, true);
    // a/p's share is the entry's (A/H, 2030); without it, the pattern's (a/h, 2031).
    const head = base.replace(
      '    shared_with_groups: [{ group: A/H, group_access: guest, expires_at: "2030-01-31" }]\n',
      "",
    );
    const planned = await plans(head);
    expect(planned).toHaveLength(1);
    expect(planned[0]).toMatch(/^replace project\["a\/p"\]\.share\["a\/h"\] .*expires_at="2031-06-30"/);
  });

  it("a group pattern removed: the subgroup it alone declared is reported unmanaged", async () => {
    const base = REF.replace("  a/h: { description: other }\n", "  a/*: { description: by pattern }\n");
    // At the base, a/h is declared by the pattern alone.
    expect(await plans(base)).toEqual(['update group["a/h"] description="by pattern"']);
    await bench.cli(["apply", "--yes", repo]);
    execFileSync(
      "git",
      ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "pattern"],
      {
        cwd: repo,
      },
    );
    expect(await plans(base.replace("  a/*: { description: by pattern }\n", ""))).toEqual([
      'unmanaged group["a/h"]',
    ]);
  });
  it("an archived project's entry removed under a pattern that leaves archived projects out: nothing is planned", async () => {
    await bench.send("POST", "/projects/a%2Fg%2Fp/archive");
    const archived = REF.replace("  a/g/*: { description: narrow }\n", "").replace(
      "  a/p: { description: own }\n",
      "  a/p: { description: own }\n  a/g/p: { description: own too }\n",
    );
    await rebase(archived);
    // a/g/p is archived, so a/** leaves it out: with its entry gone, nothing manages it.
    expect(await plans(archived.replace("  a/g/p: { description: own too }\n", ""))).toEqual([]);
    // A pattern that takes archived projects does: its settings are planned.
    const taking = archived.replace(
      "  a/**: { description: broad }\n",
      "  a/**: { description: broad, include_archived: true }\n",
    );
    await rebase(taking);
    expect(await plans(taking.replace("  a/g/p: { description: own too }\n", ""))).toEqual([
      'update project["a/g/p"] description="broad"',
    ]);
  });

  describe("items and collections an entry no longer declares, where a pattern does", () => {
    const BASE = `version: 1
groups:
  a: { description: top }
  a/g: { description: sub }
  a/h: { description: other }
projects:
  a/**:
    description: broad
    labels: [{ name: x, color: "#00FF00" }]
  a/g/*: { description: narrow }
  a/p:
    description: own
    labels: [{ name: x, color: "#FF0000" }, { name: y, color: "#0000FF" }]
`;
    beforeEach(async () => {
      await rebase(BASE, true);
    });

    it("an item removed from the entry: the pattern's item is planned", async () => {
      const head = BASE.replace(
        '[{ name: x, color: "#FF0000" }, { name: y, color: "#0000FF" }]',
        '[{ name: y, color: "#0000FF" }]',
      );
      expect(await plans(head)).toEqual(['update project["a/p"].label["x"] color="#00FF00"']);
    });

    it("the whole collection removed from the entry: the pattern's items are planned, the others unmanaged", async () => {
      const head = BASE.replace(
        '    labels: [{ name: x, color: "#FF0000" }, { name: y, color: "#0000FF" }]\n',
        "",
      );
      expect(await plans(head)).toEqual([
        'unmanaged project["a/p"].label["y"]',
        'update project["a/p"].label["x"] color="#00FF00"',
      ]);
    });

    it("two entries drop what a pattern declares for both: each object is compared in its own place", async () => {
      // The pattern's label is one node in both projects' desired state, walked for both at once.
      const both = `version: 1
projects:
  a/p:
    labels: [{ name: x, color: "#111111", description: own }]
  a/g/p:
    unmanaged: { labels: warn }
  a/**:
    labels: [{ name: x, color: "#111111", description: broad }]
`;
      await rebase(both, true);
      const head = both
        .replace('    labels: [{ name: x, color: "#111111", description: own }]\n', "")
        .replace("    unmanaged: { labels: warn }\n", "")
        .replace("  a/p:\n", "  a/p: {}\n")
        .replace("  a/g/p:\n", "  a/g/p: {}\n");
      // (y is the label the base of these cases left on a/p.)
      expect(await plans(head)).toEqual([
        'unmanaged project["a/p"].label["y"]',
        'update project["a/p"].label["x"] description="broad"',
      ]);
    });

    it("the collection removed where no pattern declares it: nothing is planned", async () => {
      const head = BASE.replace('    labels: [{ name: x, color: "#00FF00" }]\n', "").replace(
        '    labels: [{ name: x, color: "#FF0000" }, { name: y, color: "#0000FF" }]\n',
        "",
      );
      expect(await plans(head)).toEqual([]);
    });
  });
  describe("a pattern that no longer applies to an entry that declares the same collection", () => {
    const BASE = `version: 1
groups:
  a: { description: top }
  a/g: { description: sub }
  a/h: { description: other }
projects:
  a/**:
    description: broad
    labels: [{ name: z, color: "#00FF00" }]
  a/p:
    description: own
    labels: [{ name: x, color: "#FF0000" }]
    unmanaged: { labels: delete }
`;
    // The fields of a deleted object are shown before (`after` is undefined in these lines).
    const DELETED =
      'delete project["a/p"].label["z"] name=undefined color=undefined description=undefined priority=undefined';
    const PATTERN = '  a/**:\n    description: broad\n    labels: [{ name: z, color: "#00FF00" }]\n';
    beforeEach(async () => {
      await rebase(BASE, true);
    });

    it("the pattern removed: its item is deleted by the entry's policy, and the plan shows it", async () => {
      expect(await plans(BASE.replace(PATTERN, ""))).toEqual([DELETED]);
    });

    it("the entry left out of the pattern (except): the same", async () => {
      const head = BASE.replace("    description: broad\n", "    description: broad\n    except: [a/p]\n");
      expect(await plans(head)).toEqual([DELETED]);
    });

    it("the entry's own policy removed: the pattern's policy applies to its collection", async () => {
      await bench.send("POST", "/projects/a%2Fp/labels", { name: "stale", color: "#123456" });
      const stale =
        'delete project["a/p"].label["stale"] name=undefined color=undefined description=undefined priority=undefined';
      const own = BASE.replace("unmanaged: { labels: delete }", "unmanaged: { labels: warn }").replace(
        '    labels: [{ name: z, color: "#00FF00" }]\n',
        '    labels: [{ name: z, color: "#00FF00" }]\n    unmanaged: { labels: delete }\n',
      );
      await rebase(own);
      expect(await plans(own.replace("    unmanaged: { labels: warn }\n", ""))).toEqual([stale]);
    });

    it("a collection removed from a pattern's body: the objects it matches are planned whole", async () => {
      const two = BASE.replace("  a/p:\n", '  a/g/*:\n    labels: [{ name: y, color: "#111111" }]\n  a/p:\n');
      await rebase(two, true);
      // a/g/* still matches a/g/p but declares no labels: a/**'s z stays, a/g/*'s y is undeclared now.
      const head = two.replace('  a/g/*:\n    labels: [{ name: y, color: "#111111" }]\n', "  a/g/*: {}\n");
      expect(await plans(head)).toEqual(['unmanaged project["a/g/p"].label["y"]']);
    });

    it("an object another pattern declares left out (except): that pattern's policy deletes the item", async () => {
      const two = BASE.replace(
        "  a/p:\n",
        '  a/g/*:\n    labels: [{ name: y, color: "#111111" }]\n    unmanaged: { labels: delete }\n  a/p:\n',
      );
      await rebase(two, true);
      // a/g/p had a/**'s z and a/g/*'s y; left out of a/**, it has only y, and a/g/*'s policy deletes z.
      const head = two.replace("    description: broad\n", "    description: broad\n    except: [a/g/**]\n");
      expect(await plans(head)).toEqual([DELETED.replace('"a/p"', '"a/g/p"')]);
    });

    it("under the default policy, the pattern's item is reported unmanaged", async () => {
      const warn = BASE.replace("    unmanaged: { labels: delete }\n", "");
      await rebase(warn);
      expect(await plans(warn.replace(PATTERN, ""))).toEqual(['unmanaged project["a/p"].label["z"]']);
    });
  });
});
