// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the manifest writes reference syntax literally
/**
 * `forgeform explain` as text, whole: which entries apply and which leave the path out, every field and item with
 * the entry and manifest place it came from, secrets masked (also inside lists), settings, deletes and policies.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifests } from "../../src/manifest/index.js";
import { explain } from "../../src/manifest/selectors.js";
import { renderExplainText } from "../../src/report/explain.js";

const MANIFEST = `version: 1
groups:
  acme:
    description: Acme
    milestones:
      - title: Q1
projects:
  acme/**:
    except: [acme/legacy/**]
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "H 2 * * *"
        variables:
          - key: TOKEN
            value: \${env:NIGHTLY}
    unmanaged:
      badges: delete
  acme/platform/api:
    badges:
      - name: coverage
        link_url: https://ci.example/%{project_path}
        image_url: https://ci.example/c.svg
      - name: old
        link_url: https://ci.example/o
        image_url: https://ci.example/o.svg
        state: absent
    notification_settings:
      level: watch
    protected_environments:
      - name: production
        deploy_access_levels: [{ access_level: 40 }, { user: "bot-\${env:DEPLOYER}" }]
  acme/tools/cli:
    triggers:
      - description: deploy
`;

const OTHER = `version: 1
groups:
  acme/*:
    description: A team
projects:
  acme/**:
    except: [acme/legacy/**]
  acme/legacy/**:
    except: [acme/legacy/old/**]
  acme/tools/cli:
    unchecked:
      ci_settings: { token: "Bearer \${env:CI_TOKEN}", mode: "fast" }
    labels:
      - name: labels
        color: "#ff0000"
      - name: bug
        color: "#00ff00"
  other/app:
    description: Other
`;

async function explained(
  collection: "groups" | "projects",
  path: string,
  manifest = MANIFEST,
): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), "ff-explain-"));
  writeFileSync(join(dir, "m.yaml"), manifest);
  const loaded = await loadManifests([join(dir, "m.yaml")], { secrets: false });
  // An unchecked: setting is warned about; nothing else.
  expect(loaded.diagnostics.filter((d) => !d.path.includes(".unchecked."))).toEqual([]);
  const e = explain(loaded.state!, collection, path);
  return e && renderExplainText(e).replaceAll(`${dir}/`, "");
}

describe("renderExplainText", () => {
  it("shows a project's merged configuration, each line with its entry and place", async () => {
    expect(await explained("projects", "acme/platform/api")).toBe(`project "acme/platform/api"
Entries that apply, from the least to the most specific: projects["acme/**"] (m.yaml:8:3), projects["acme/platform/api"] (m.yaml:19:3)

pipeline_schedules:
  - Nightly                                              # projects["acme/**"] m.yaml:11:9
      description: "Nightly"                             # projects["acme/**"] m.yaml:11:22
      ref: "main"                                        # projects["acme/**"] m.yaml:12:14
      cron: "24 2 * * *" (written "H 2 * * *")           # projects["acme/**"] m.yaml:13:15
      variables:
        - TOKEN                                          # projects["acme/**"] m.yaml:15:13
            key: "TOKEN"                                 # projects["acme/**"] m.yaml:15:18
            value: (sensitive)                           # projects["acme/**"] m.yaml:16:20
badges:
  - coverage                                             # projects["acme/platform/api"] m.yaml:21:9
      name: "coverage"                                   # projects["acme/platform/api"] m.yaml:21:15
      link_url: "https://ci.example/%{project_path}"     # projects["acme/platform/api"] m.yaml:22:19
      image_url: "https://ci.example/c.svg"              # projects["acme/platform/api"] m.yaml:23:20
  - old: absent (deleted)                                # projects["acme/platform/api"] m.yaml:24:9
  unmanaged badges: delete                               # projects["acme/**"] m.yaml:8:3
notification_settings:
  (settings)                                             # projects["acme/platform/api"] m.yaml:29:7
      level: "watch"                                     # projects["acme/platform/api"] m.yaml:29:14
protected_environments:
  - production                                           # projects["acme/platform/api"] m.yaml:31:9
      name: "production"                                 # projects["acme/platform/api"] m.yaml:31:15
      deploy_access_levels: [{"access_level":40},{"user":"bot-(sensitive)"}] # projects["acme/platform/api"] m.yaml:32:31

Patterns apply to existing projects only, and leave out archived ones unless include_archived: true.
`);
  });

  it("shows a group declared by full path, without the note on patterns", async () => {
    expect(await explained("groups", "acme")).toBe(`group "acme"
Entries that apply, from the least to the most specific: groups["acme"] (m.yaml:3:3)

description: "Acme"                                      # groups["acme"] m.yaml:4:18
milestones:
  - Q1                                                   # groups["acme"] m.yaml:6:9
      title: "Q1"                                        # groups["acme"] m.yaml:6:16
`);
  });

  it("names the except: that leaves a path out", async () => {
    expect(await explained("projects", "acme/legacy/x")).toBe(`project "acme/legacy/x"
Entries that apply, from the least to the most specific: 
Left out by except: projects["acme/**"] leaves it out (except: acme/legacy/** at m.yaml:9:14)

`);
  });

  it("shows a secret inside a setting's object as written around it, and an item named as its list as an item", async () => {
    expect(await explained("projects", "acme/tools/cli", OTHER)).toBe(`project "acme/tools/cli"
Entries that apply, from the least to the most specific: projects["acme/**"] (m.yaml:6:3), projects["acme/tools/cli"] (m.yaml:10:3)

unchecked.ci_settings: {"token":"Bearer (sensitive)","mode":"fast"} # projects["acme/tools/cli"] m.yaml:12:20
labels:
  - labels                                               # projects["acme/tools/cli"] m.yaml:14:9
      name: "labels"                                     # projects["acme/tools/cli"] m.yaml:14:15
      color: "#ff0000"                                   # projects["acme/tools/cli"] m.yaml:15:16
  - bug                                                  # projects["acme/tools/cli"] m.yaml:16:9
      name: "bug"                                        # projects["acme/tools/cli"] m.yaml:16:15
      color: "#00ff00"                                   # projects["acme/tools/cli"] m.yaml:17:16

Patterns apply to existing projects only, and leave out archived ones unless include_archived: true.
`);
  });

  it("has the note on patterns only for a project a pattern matched", async () => {
    expect(await explained("projects", "other/app", OTHER)).toBe(`project "other/app"
Entries that apply, from the least to the most specific: projects["other/app"] (m.yaml:18:3)

description: "Other"                                     # projects["other/app"] m.yaml:19:18
`);
    expect(await explained("groups", "acme/tools", OTHER)).toBe(`group "acme/tools"
Entries that apply, from the least to the most specific: groups["acme/*"] (m.yaml:3:3)

description: "A team"                                    # groups["acme/*"] m.yaml:4:18
`);
  });

  it("names every except: that leaves a path out", async () => {
    expect(await explained("projects", "acme/legacy/old/x", OTHER)).toBe(`project "acme/legacy/old/x"
Entries that apply, from the least to the most specific: 
Left out by except: projects["acme/**"] leaves it out (except: acme/legacy/** at m.yaml:7:14); projects["acme/legacy/**"] leaves it out (except: acme/legacy/old/** at m.yaml:9:14)

`);
  });
});
