/**
 * The drift report's text, Markdown and JUnit renderings, each compared whole, for every action (with targets, a
 * shard and an error) and for no drift (with and without errors).
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/model.js";
import { renderDriftJunit, renderDriftMarkdown, renderDriftText } from "../../src/report/drift.js";
import { everyAction, makePlan } from "./fixtures.js";

const drifted = (): Plan => ({
  ...makePlan(everyAction, {
    targets: ['project["acme/api"]'],
    errors: [{ address: 'project["acme/x"]', message: "missing" }],
  }),
  shard: { index: 2, count: 3, units: ["acme", "tools"] },
});
const inSync = ['group["acme"]'];

describe("a drift report with every action", () => {
  it("as text", () => {
    expect(renderDriftText(drifted(), { color: false })).toBe(`Limited to targets: project["acme/api"]

Shard 2/3: acme, tools

Drift between the platform and the manifests (fields read live -> declared):

    + project["acme/api"].pipeline_schedule["Nightly"] missing (declared in the manifests, not on the platform)
      + description: "Nightly"
      + cron: "0 2 * * *"
      + active: true

    ~ project["acme/api"].pipeline_schedule["Nightly"].variable["DEPLOY_ENV"] drifted (the live object differs from the manifests)
      ~ value: "staging" -> "production"

    ~ group["acme/platform"].variable["API_TOKEN"] drifted (the live object differs from the manifests)
      ~ value: (sensitive) -> (sensitive)

    ~ instance.application_settings drifted (the live object differs from the manifests)
      ~ signup_enabled: true -> false
      ~ max_artifacts_size: 100 -> 200 # needs a restart of the platform to take effect
      ~ after_sign_up_text:
          @@ -1,3 +1,3 @@
           This schedule runs the nightly build.
          -It deploys to staging.
          +It deploys to production.
           Owner: platform team.

  -/+ project["acme/api"].protected_environment["production"] drifted (applying the manifests would replace it)
      # protected environments have no update call: replaced
      ~ required_approval_count: 1 -> 2 (forces replacement)

    - instance.system_hook["https://hooks.example.com/old"] would be deleted by apply
      # not in the manifests; system_hooks prune policy is delete
      - url: "https://hooks.example.com/old"
      - token: (write-only)
      - push_events: false

    ! group["acme/platform"].badge["coverage"] unmanaged (on the platform, not in the manifests)
        link_url: "https://ci.example.com/coverage"

Errors (1):
  - project["acme/x"]: missing

Read live state with 12 requests.
Drift: 4 drifted, 1 missing, 1 unmanaged, 1 would be deleted.
`);
  });

  it("as Markdown", () => {
    expect(renderDriftMarkdown(drifted())).toBe(`## forgeform drift report

Live state of \`https://forge.example.com\` compared with the manifests, 2026-11-22T03:00:00.000Z.
Limited to targets: \`project["acme/api"]\`.

| Drifted | Missing | Unmanaged | Would delete |
| ---: | ---: | ---: | ---: |
| 4 | 1 | 1 | 1 |

> [!CAUTION]
> Applying the manifests would delete 1 object the manifests do not mention and replace 1 drifted object:
>
> - \`project["acme/api"].protected_environment["production"]\` (replace)
> - \`instance.system_hook["https://hooks.example.com/old"]\` (delete)

### Errors

- \`project["acme/x"]\`: missing

| Target | \`application_settings\` | \`badges\` | \`pipeline_schedules\` | \`protected_environments\` | \`system_hooks\` | \`variables\` |
| --- | --- | --- | --- | --- | --- | --- |
| \`project["acme/api"]\` |  |  | +1 | -/+1 |  | ~1 |
| \`group["acme/platform"]\` |  | !1 |  |  |  | ~1 |
| \`instance\` | ~1 |  |  |  | -1 |  |

Symbols: \`~\` drifted (\`-\` lines are live values, \`+\` lines the manifests'), \`-/+\` drifted, applying replaces it, \`+\` missing from the platform, \`!\` unmanaged (not in the manifests), \`-\` not in the manifests, applying deletes it (prune policy delete).

<details><summary><code>project[&quot;acme/api&quot;]</code>: 1 missing, 1 drifted, 1 drifted (replace)</summary>

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

<details><summary><code>group[&quot;acme/platform&quot;]</code>: 1 drifted, 1 unmanaged</summary>

\`\`\`diff
~ group["acme/platform"].variable["API_TOKEN"]
-     value: (sensitive)
+     value: (sensitive)
! group["acme/platform"].badge["coverage"]
      link_url: "https://ci.example.com/coverage"
\`\`\`

</details>

<details><summary><code>instance</code>: 1 drifted, 1 would be deleted</summary>

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

Read live state with 12 requests. Drift: 4 drifted, 1 missing, 1 unmanaged, 1 would be deleted.
`);
  });

  it("as JUnit", () => {
    expect(renderDriftJunit(drifted(), { inSync })).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="forgeform drift" tests="9" failures="6" errors="1">
  <testsuite name="project[&quot;acme/api&quot;]" tests="3" failures="3" errors="0" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <testcase name="project[&quot;acme/api&quot;].pipeline_schedule[&quot;Nightly&quot;]" classname="project[&quot;acme/api&quot;]">
      <failure type="missing" message="missing: declared in the manifests at manifests/acme.yaml:12:7 but not on the platform">+ description: &quot;Nightly&quot;
+ cron: &quot;0 2 * * *&quot;
+ active: true</failure>
    </testcase>
    <testcase name="project[&quot;acme/api&quot;].pipeline_schedule[&quot;Nightly&quot;].variable[&quot;DEPLOY_ENV&quot;]" classname="project[&quot;acme/api&quot;]">
      <failure type="drifted" message="drifted: value differs from the manifests">~ value: &quot;staging&quot; -&gt; &quot;production&quot;</failure>
    </testcase>
    <testcase name="project[&quot;acme/api&quot;].protected_environment[&quot;production&quot;]" classname="project[&quot;acme/api&quot;]">
      <failure type="drifted" message="drifted: required_approval_count differs from the manifests; applying would replace it"># protected environments have no update call: replaced
~ required_approval_count: 1 -&gt; 2 (forces replacement)</failure>
    </testcase>
  </testsuite>
  <testsuite name="group[&quot;acme/platform&quot;]" tests="2" failures="1" errors="0" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <testcase name="group[&quot;acme/platform&quot;].variable[&quot;API_TOKEN&quot;]" classname="group[&quot;acme/platform&quot;]">
      <failure type="drifted" message="drifted: value differs from the manifests">~ value: (sensitive) -&gt; (sensitive)</failure>
    </testcase>
    <testcase name="group[&quot;acme/platform&quot;].badge[&quot;coverage&quot;]" classname="group[&quot;acme/platform&quot;]">
      <system-out>unmanaged: on the platform but not in the manifests (prune policy warn: reported, not a failure; --fail-on-unmanaged makes it one)</system-out>
    </testcase>
  </testsuite>
  <testsuite name="instance" tests="2" failures="2" errors="0" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <testcase name="instance.application_settings" classname="instance">
      <failure type="drifted" message="drifted: signup_enabled, max_artifacts_size, after_sign_up_text differ from the manifests">~ signup_enabled: true -&gt; false
~ max_artifacts_size: 100 -&gt; 200 # needs a restart of the platform to take effect
~ after_sign_up_text:
    @@ -1,3 +1,3 @@
     This schedule runs the nightly build.
    -It deploys to staging.
    +It deploys to production.
     Owner: platform team.</failure>
    </testcase>
    <testcase name="instance.system_hook[&quot;https://hooks.example.com/old&quot;]" classname="instance">
      <failure type="would_delete" message="not in the manifests: applying would delete it (prune policy delete)"># not in the manifests; system_hooks prune policy is delete
- url: &quot;https://hooks.example.com/old&quot;
- token: (write-only)
- push_events: false</failure>
    </testcase>
  </testsuite>
  <testsuite name="group[&quot;acme&quot;]" tests="1" failures="0" errors="0" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <testcase name="group[&quot;acme&quot;]" classname="group[&quot;acme&quot;]"/>
  </testsuite>
  <testsuite name="project[&quot;acme/x&quot;]" tests="1" failures="0" errors="1" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <testcase name="project[&quot;acme/x&quot;]" classname="project[&quot;acme/x&quot;]">
      <error type="plan-error" message="project[&quot;acme/x&quot;]: missing">project[&quot;acme/x&quot;]: missing</error>
    </testcase>
  </testsuite>
</testsuites>
`);
  });
});

describe("a drift report without drift", () => {
  const withError = (): Plan => ({
    ...makePlan([], { errors: [{ address: 'project["acme/x"]', message: "missing" }] }),
    shard: { index: 1, count: 2, units: [] },
  });

  it("as text says so, or that errors kept parts from being compared", () => {
    expect(renderDriftText(makePlan([]), { color: false })).toBe(`Read live state with 12 requests.
No drift. The live state matches the manifests.
Drift: 0 drifted, 0 missing, 0 unmanaged, 0 would be deleted.
`);
    const text = renderDriftText(withError(), { color: false });
    expect(text.startsWith("Shard 1/2: no top-level targets\n")).toBe(true);
    expect(text).toContain('\nErrors (1):\n  - project["acme/x"]: missing\n');
    expect(
      text.endsWith(
        "No drift found, but 1 error kept parts from being compared.\nDrift: 0 drifted, 0 missing, 0 unmanaged, 0 would be deleted.\n",
      ),
    ).toBe(true);
  });

  it("as Markdown", () => {
    expect(renderDriftMarkdown(makePlan([]))).toBe(`## forgeform drift report

Live state of \`https://forge.example.com\` compared with the manifests, 2026-11-22T03:00:00.000Z.

| Drifted | Missing | Unmanaged | Would delete |
| ---: | ---: | ---: | ---: |
| 0 | 0 | 0 | 0 |

**No drift.** The live state matches the manifests.

Read live state with 12 requests. Drift: 0 drifted, 0 missing, 0 unmanaged, 0 would be deleted.
`);
    expect(renderDriftMarkdown(withError())).toBe(`## forgeform drift report

Live state of \`https://forge.example.com\` compared with the manifests, 2026-11-22T03:00:00.000Z.

| Drifted | Missing | Unmanaged | Would delete |
| ---: | ---: | ---: | ---: |
| 0 | 0 | 0 | 0 |

**No drift found**, but the errors below kept parts from being compared.

### Errors

- \`project["acme/x"]\`: missing

Read live state with 12 requests. Drift: 0 drifted, 0 missing, 0 unmanaged, 0 would be deleted.
`);
  });

  it("as JUnit: the objects in sync pass", () => {
    expect(renderDriftJunit(makePlan([]), { inSync })).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="forgeform drift" tests="1" failures="0" errors="0">
  <testsuite name="group[&quot;acme&quot;]" tests="1" failures="0" errors="0" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <testcase name="group[&quot;acme&quot;]" classname="group[&quot;acme&quot;]"/>
  </testsuite>
</testsuites>
`);
  });
});
