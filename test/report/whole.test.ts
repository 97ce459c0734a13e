/**
 * The plan's text and Markdown renderings, each compared whole: every symbol, indent, marker and escape is what a
 * reader sees, so each is checked, not only the parts other tests look for.
 */
import { describe, expect, it } from "vitest";
import { renderPlanMarkdown } from "../../src/report/markdown.js";
import { renderPlanText } from "../../src/report/text.js";
import { leftOut } from "./checks.js";
import { awkwardPlan, bigPlan, everyAction, makePlan } from "./fixtures.js";

describe("the plan as text", () => {
  it("renders every action", () => {
    expect(
      renderPlanText(makePlan(everyAction), { color: false }),
    ).toBe(`Actions are shown with these symbols:
    + create
    ~ update in place
  -/+ replace
    - delete
    ! unmanaged, left alone

forgeform will perform these actions:

    + project["acme/api"].pipeline_schedule["Nightly"] will be created
      + description: "Nightly"
      + cron: "0 2 * * *"
      + active: true

    ~ project["acme/api"].pipeline_schedule["Nightly"].variable["DEPLOY_ENV"] will be updated in place
      ~ value: "staging" -> "production"

    ~ group["acme/platform"].variable["API_TOKEN"] will be updated in place
      ~ value: (sensitive) -> (sensitive)

    ~ instance.application_settings will be updated in place
      ~ signup_enabled: true -> false
      ~ max_artifacts_size: 100 -> 200 # needs a restart of the platform to take effect
      ~ after_sign_up_text:
          @@ -1,3 +1,3 @@
           This schedule runs the nightly build.
          -It deploys to staging.
          +It deploys to production.
           Owner: platform team.

  -/+ project["acme/api"].protected_environment["production"] will be replaced (deleted, then created)
      # protected environments have no update call: replaced
      ~ required_approval_count: 1 -> 2 (forces replacement)

    - instance.system_hook["https://hooks.example.com/old"] will be deleted
      # not in the manifests; system_hooks prune policy is delete
      - url: "https://hooks.example.com/old"
      - token: (write-only)
      - push_events: false

    ! group["acme/platform"].badge["coverage"] unmanaged (not in the manifests, left alone)
        link_url: "https://ci.example.com/coverage"

1 unmanaged object (not in the manifests) left alone.
Read live state with 12 requests.
Plan: 1 to create, 3 to update, 1 to replace, 1 to delete.
`);
  });

  it("renders multi-line values on every side, unset values, problems and targets", () => {
    expect(renderPlanText(awkwardPlan(), { color: false })).toBe(`Limited to targets: project["a&b/<x>"]

Actions are shown with these symbols:
    + create
    ~ update in place
    - delete
    ! unmanaged, left alone

forgeform will perform these actions:

    + project["a&b/<x>"].badge["\`tick\` | pipe"] will be created
      + description:
          +This schedule runs the nightly build.
          +It deploys to production.
          +Owner: platform team.
      + name: "\`tick\` | pipe"

    - project["a&b/<x>"].badge["gone"] will be deleted
      # line one\\x0d
      # line two
      - description:
          -This schedule runs the nightly build.
          -It deploys to staging.
          -Owner: platform team.

    ~ project["a&b/<x>"].badge["keep"] will be updated in place
      ~ image_url: (unset) -> "https://new"
      ~ link_url: "https://old" -> (unset)

    ! project["a&b/<x>"].badge["other"] unmanaged (not in the manifests, left alone)
        description:
           This schedule runs the nightly build.
           It deploys to staging.
           Owner: platform team.

Errors (1):
  - m.yaml:2:3: project["a"]: bad <thing> & *stars*

Warnings (1):
  - instance: careful

1 unmanaged object (not in the manifests) left alone.
Read live state with 12 requests.
Plan: 1 to create, 1 to update, 0 to replace, 1 to delete.
`);
  });
});

describe("the plan as Markdown", () => {
  it("renders every action", () => {
    expect(renderPlanMarkdown(makePlan(everyAction))).toBe(`## forgeform plan

Plan for \`https://forge.example.com\`, made 2026-11-22T03:00:00.000Z.

| Create | Update | Replace | Delete | Unmanaged |
| ---: | ---: | ---: | ---: | ---: |
| 1 | 3 | 1 | 1 | 1 |

> [!CAUTION]
> This plan deletes 1 object and replaces 1 object (deletes, then creates them again). Check them before applying:
>
> - \`project["acme/api"].protected_environment["production"]\` (replace)
> - \`instance.system_hook["https://hooks.example.com/old"]\` (delete)

| Target | \`application_settings\` | \`badges\` | \`pipeline_schedules\` | \`protected_environments\` | \`system_hooks\` | \`variables\` |
| --- | --- | --- | --- | --- | --- | --- |
| \`project["acme/api"]\` |  |  | +1 | -/+1 |  | ~1 |
| \`group["acme/platform"]\` |  | !1 |  |  |  | ~1 |
| \`instance\` | ~1 |  |  |  | -1 |  |

Symbols: \`+\` create, \`~\` update in place, \`-/+\` replace (delete, then create), \`-\` delete, \`!\` unmanaged (not in the manifests, left alone).

<details><summary><code>project[&quot;acme/api&quot;]</code>: 1 to create, 1 to update, 1 to replace</summary>

\`\`\`diff
+ project["acme/api"].pipeline_schedule["Nightly"]
+     description: "Nightly"
+     cron: "0 2 * * *"
+     active: true
~ project["acme/api"].pipeline_schedule["Nightly"].variable["DEPLOY_ENV"]
-     value: "staging"
+     value: "production"
-/+ project["acme/api"].protected_environment["production"]
#     protected environments have no update call: replaced
-     required_approval_count: 1
+     required_approval_count: 2  (forces replacement)
\`\`\`

</details>

<details><summary><code>group[&quot;acme/platform&quot;]</code>: 1 to update, 1 unmanaged</summary>

\`\`\`diff
~ group["acme/platform"].variable["API_TOKEN"]
-     value: (sensitive)
+     value: (sensitive)
! group["acme/platform"].badge["coverage"]
      link_url: "https://ci.example.com/coverage"
\`\`\`

</details>

<details><summary><code>instance</code>: 1 to update, 1 to delete</summary>

\`\`\`diff
~ instance.application_settings
-     signup_enabled: true
+     signup_enabled: false
-     max_artifacts_size: 100
+     max_artifacts_size: 200  # needs a restart of the platform to take effect
~     after_sign_up_text:
        @@ -1,3 +1,3 @@
          This schedule runs the nightly build.
-         It deploys to staging.
+         It deploys to production.
          Owner: platform team.
- instance.system_hook["https://hooks.example.com/old"]
#     not in the manifests; system_hooks prune policy is delete
-     url: "https://hooks.example.com/old"
-     token: (write-only)
-     push_events: false
\`\`\`

</details>

Read live state with 12 requests. 6 changes to apply.
`);
  });

  it("renders multi-line values on every side, unset values, problems, targets and escapes", () => {
    expect(renderPlanMarkdown(awkwardPlan())).toBe(`## forgeform plan

Plan for \`https://forge.example.com\`, made 2026-11-22T03:00:00.000Z.
Limited to targets: \`project["a&b/<x>"]\`.

| Create | Update | Replace | Delete | Unmanaged |
| ---: | ---: | ---: | ---: | ---: |
| 1 | 1 | 0 | 1 | 1 |

> [!CAUTION]
> This plan deletes 1 object. Check them before applying:
>
> - \`project["a&b/<x>"].badge["gone"]\` (delete)

### Errors

- \`m.yaml:2:3\` \`project["a"]\`: bad &lt;thing&gt; &amp; \\*stars\\*

### Warnings

- \`instance\`: careful

| Target | \`badges\` |
| --- | --- |
| \`project["a&b/<x>"]\` | +1 ~1 -1 !1 |

Symbols: \`+\` create, \`~\` update in place, \`-/+\` replace (delete, then create), \`-\` delete, \`!\` unmanaged (not in the manifests, left alone).

<details><summary><code>project[&quot;a&amp;b/&lt;x&gt;&quot;]</code>: 1 to create, 1 to update, 1 to delete, 1 unmanaged</summary>

\`\`\`diff
+ project["a&b/<x>"].badge["\`tick\` | pipe"]
+     description:
+         This schedule runs the nightly build.
+         It deploys to production.
+         Owner: platform team.
+     name: "\`tick\` | pipe"
- project["a&b/<x>"].badge["gone"]
#     line one line two
-     description:
-         This schedule runs the nightly build.
-         It deploys to staging.
-         Owner: platform team.
~ project["a&b/<x>"].badge["keep"]
-     image_url: (unset)
+     image_url: "https://new"
-     link_url: "https://old"
+     link_url: (unset)
! project["a&b/<x>"].badge["other"]
      description:
          This schedule runs the nightly build.
          It deploys to staging.
          Owner: platform team.
\`\`\`

</details>

Read live state with 12 requests. 3 changes to apply.
`);
  });

  it("keeps a comment whole while each part leaves room for the closing note, the last line included", () => {
    const plan = bigPlan(12);
    const full = renderPlanMarkdown(plan, { maxLength: 1_000_000 });
    expect(full.length).toBeGreaterThan(2_000);
    // Every part but the last line keeps 1,000 characters for a note saying what was cut. The last line needs no
    // room when nothing was cut: before, it kept that room too, and a comment that fitted lost it silently.
    const last = full.slice(full.lastIndexOf("\n", full.length - 2) + 1);
    expect(last).toBe("Read live state with 12 requests. 12 changes to apply.\n");
    const room = full.length - last.length + 1_000;
    expect(renderPlanMarkdown(plan, { maxLength: room })).toBe(full);
    const cut = renderPlanMarkdown(plan, { maxLength: room - 1 });
    expect(cut.length).toBeLessThan(full.length);
    expect(cut).toContain("This report was cut to stay under");
    expect(leftOut(cut)).toBe(1);
  });
});
