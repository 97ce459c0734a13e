import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { startProxy, startRecorder } from "./proxy.js";

interface ApiPage {
  slug: string;
  title: string;
  format: string;
  content: string;
}

const fixture = {
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }],
  wikis: [{ project: "acme/api", title: "Old notes", content: "left over" }],
};

const summary = (out: string) => out.trim().split("\n").at(-1);
/** Plan text with wrapped comment lines joined. */
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("wiki pages", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const page = (slug: string) => bench.get<ApiPage>(`/projects/acme%2Fapi/wikis/${encodeURIComponent(slug)}`);
  const pages = () => bench.get<ApiPage[]>("/projects/acme%2Fapi/wikis");

  it("goes through the whole lifecycle, field by field, with content from a file", async () => {
    writeFileSync(join(bench.dir, "runbook.md"), "# Runbook\n\nRestart the service.\n");
    const manifest = (fields: string) =>
      bench.manifest(`version: 1
projects:
  acme/api:
    wiki_pages:
      - title: Old notes
        content: left over
      - title: On call runbook
${fields}
`);
    const created = manifest("        content_file: runbook.md");
    const plan = await bench.cli(["plan", "--detailed-exitcode", created]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('+ project["acme/api"].wiki_page["On-call-runbook"]');
    expect(summary(plan.out)).toBe("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", created])).code).toBe(0);
    expect(await page("On-call-runbook")).toMatchObject({
      title: "On call runbook",
      format: "markdown",
      content: "# Runbook\n\nRestart the service.\n",
    });
    expect((await bench.cli(["plan", "--detailed-exitcode", created])).code).toBe(0);

    writeFileSync(join(bench.dir, "runbook.md"), "# Runbook\n\nRestart the service, then check the logs.\n");
    const p1 = await bench.cli(["plan", "--detailed-exitcode", created]);
    expect(p1.code).toBe(2);
    expect(p1.out).toContain('~ project["acme/api"].wiki_page["On-call-runbook"]');
    expect(p1.out).toContain("content");
    expect(summary(p1.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", created])).code).toBe(0);
    expect((await page("On-call-runbook")).content).toContain("check the logs");
    expect((await bench.cli(["plan", "--detailed-exitcode", created])).code).toBe(0);

    const asciidoc = manifest(`        format: asciidoc
        content: "= Runbook"`);
    const p2 = await bench.cli(["plan", "--detailed-exitcode", asciidoc]);
    expect(p2.out).toContain("format");
    expect(summary(p2.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", asciidoc])).code).toBe(0);
    expect(await page("On-call-runbook")).toMatchObject({ format: "asciidoc", content: "= Runbook" });
    expect((await bench.cli(["plan", "--detailed-exitcode", asciidoc])).code).toBe(0);

    const retitled = bench.manifest(`version: 1
projects:
  acme/api:
    wiki_pages:
      - title: On call
        slug: On-call-runbook
        content: "= Runbook"
`);
    const p3 = await bench.cli(["plan", retitled]);
    expect(p3.code).toBe(1);
    expect(prose(p3.out)).toContain(
      'slug "On-call-runbook" is not the one the platform derives from the title "On call" ("On-call")',
    );
  });

  it("uploads attachments once, when the page is created", async () => {
    writeFileSync(join(bench.dir, "diagram.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    const file = bench.manifest(`version: 1
projects:
  acme/api:
    wiki_pages:
      - title: Architecture
        content: "![diagram](uploads/diagram.png)"
        attachments: [diagram.png]
`);
    const uploads = () =>
      (bench.sandbox.store.data.areas["wikis"] as { attachments: { file_name: string; data: string }[] })
        .attachments;
    const before = uploads().length;
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(0);
    expect((await page("Architecture")).content).toBe("![diagram](uploads/diagram.png)");
    const added = uploads().slice(before);
    expect(added.map((u) => u.file_name)).toEqual(["diagram.png"]);
    expect(Buffer.from(added[0]!.data, "base64")).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    // Uploads cannot be read back, so they are never compared: the page is in sync and nothing is uploaded again.
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect(uploads().length).toBe(before + 1);
    // Replacing the page on request uploads its attachments again.
    const replaced = await bench.cli([
      "apply",
      "--yes",
      "--replace",
      'project["acme/api"].wiki_page["Architecture"]',
      file,
    ]);
    expect(replaced.code, replaced.out + replaced.err).toBe(0);
    expect(uploads().length).toBe(before + 2);
    expect((await page("Architecture")).content).toBe("![diagram](uploads/diagram.png)");
  });

  it("keeps pages in directories and titles with hyphens in sync, though the platform reads titles back shorter", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/api:
    wiki_pages:
      - title: guides/Set-up the laptop
        content: Install the tools.
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.out).toContain('+ project["acme/api"].wiki_page["guides/Set-up-the-laptop"]');
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect(await page("guides/Set-up-the-laptop")).toMatchObject({ content: "Install the tools." });
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    // Exported with its directory in front of the title the platform reads back, no slug: it plans no changes.
    const out = mkdtempSync(join(tmpdir(), "forgeform-wiki-export-"));
    expect((await bench.cli(["export", "--project", "acme/api", "--out", out])).code).toBe(0);
    const [exported] = readdirSync(out).filter((n) => n.endsWith(".yaml"));
    const text = readFileSync(join(out, exported!), "utf8");
    expect(text).toMatch(/title: guides\/Set.up the laptop\n/);
    expect(text).not.toContain("slug:");
    expect((await bench.cli(["plan", "--detailed-exitcode", join(out, exported!)])).code).toBe(0);
    const removed = bench.manifest(`version: 1
projects:
  acme/api:
    wiki_pages:
      - title: guides/Set-up the laptop
        state: absent
`);
    expect((await bench.cli(["apply", "--yes", removed])).code).toBe(0);
    await expect(page("guides/Set-up-the-laptop")).rejects.toThrow(/404/);
  });

  it("warns about an undeclared page by default, deletes it with a delete policy", async () => {
    const warn = bench.manifest(`version: 1
projects:
  acme/api:
    wiki_pages:
      - title: Architecture
        content: "![diagram](uploads/diagram.png)"
`);
    const warned = await bench.cli(["plan", "--detailed-exitcode", warn]);
    expect(warned.code).toBe(0);
    expect(warned.out).toContain('wiki_page["Old-notes"]');
    expect(warned.out).toContain("prune policy warn");

    const pruned = bench.manifest(`version: 1
projects:
  acme/api:
    unmanaged:
      wiki_pages: delete
    wiki_pages:
      - title: Architecture
        content: "![diagram](uploads/diagram.png)"
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", pruned]);
    expect(plan.out).toContain('- project["acme/api"].wiki_page["Old-notes"]');
    expect(plan.out).toContain('- project["acme/api"].wiki_page["On-call-runbook"]');
    expect(summary(plan.out)).toBe("Plan: 0 to create, 0 to update, 0 to replace, 2 to delete.");
    expect((await bench.cli(["apply", "--yes", pruned])).code).toBe(0);
    expect((await pages()).map((p) => p.slug)).toEqual(["Architecture"]);
  });
});

describe("wiki pages: what create and update send", () => {
  let bench: Bench;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/api" }] } });
    recorder = await startRecorder(bench.sandbox.url);
  });
  afterAll(async () => {
    await recorder.close();
    await bench.stop();
  });
  const page = (slug: string) => bench.get<ApiPage>(`/projects/acme%2Fapi/wikis/${encodeURIComponent(slug)}`);
  const wiki = (pages: string, name = "forgeform.yaml") =>
    bench.manifest(`version: 1\nprojects:\n  acme/api:\n    wiki_pages:\n${pages}`, name);

  it("creates a page with the format asked for", async () => {
    const file = wiki(`      - title: Notes
        format: asciidoc
        content: "= Notes"
`);
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect(await page("Notes")).toMatchObject({ format: "asciidoc", content: "= Notes" });
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("takes a title with spaces around it as the platform does: the slug is the trimmed title's", async () => {
    const file = wiki(`      - title: " Release checklist "
        content: steps
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code, plan.out + plan.err).toBe(2);
    expect(plan.out).toContain('+ project["acme/api"].wiki_page["Release-checklist"]');
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect(await page("Release-checklist")).toMatchObject({ title: "Release checklist", content: "steps" });
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("sends an unchecked setting of a page as written when it changes, with the page's format, which the platform needs", async () => {
    expect(
      (await bench.cli(["apply", "--yes", wiki("      - title: Hatch\n        content: one\n")])).code,
    ).toBe(0);
    const file = wiki(
      "      - title: Hatch\n        content: one\n        unchecked:\n          front_matter: true\n",
    );
    recorder.requests.length = 0;
    const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: recorder.url });
    expect(r.code, r.out + r.err).toBe(0);
    expect(recorder.requests.filter((q) => q.method !== "GET")).toEqual([
      {
        method: "PUT",
        path: "/api/v4/projects/acme%2Fapi/wikis/Hatch",
        body: { front_matter: true, format: "markdown" },
      },
    ]);
  });

  it("says which attachment cannot be read when it goes missing during the apply", async () => {
    const shot = join(bench.dir, "shot.png");
    writeFileSync(shot, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    // The file is there when the manifest is read, and removed while the platform creates the page.
    const proxy = await startProxy(bench.sandbox.url, (req) => {
      if (req.method !== "POST" || !/\/wikis$/.test(req.url ?? "")) return false;
      rmSync(shot);
      return false;
    });
    try {
      const file = wiki(`      - title: Diagrams
        content: "![shot](uploads/shot.png)"
        attachments: [shot.png]
`);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code).toBe(1);
      expect(prose(r.out + r.err)).toContain(
        `attachment ${shot} cannot be read (ENOENT): check the path in attachments`,
      );
    } finally {
      await proxy.close();
    }
  });
});
