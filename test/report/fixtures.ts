import { type Change, type Plan, type PlanProblem, summarize } from "../../src/plan/model.js";

/** A Plan around the given changes, with a summary that matches them. */
export function makePlan(
  changes: Change[],
  extra: { errors?: PlanProblem[]; warnings?: PlanProblem[]; targets?: string[] } = {},
): Plan {
  return {
    formatVersion: 1,
    createdAt: "2026-11-22T03:00:00.000Z",
    url: "https://forge.example.com",
    manifests: ["manifests/acme.yaml"],
    targets: extra.targets ?? [],
    changes,
    errors: extra.errors ?? [],
    warnings: extra.warnings ?? [],
    summary: summarize(changes),
    requests: {
      total: 12,
      byEndpoint: { "GET /projects/:id/pipeline_schedules": 3, "GET /groups": 9 },
      retries: 0,
    },
    liveDigest: "sha256:0f3c",
  };
}

export const LONG_DESCRIPTION_BEFORE = [
  "This schedule runs the nightly build.",
  "It deploys to staging.",
  "Owner: platform team.",
].join("\n");
export const LONG_DESCRIPTION_AFTER = [
  "This schedule runs the nightly build.",
  "It deploys to production.",
  "Owner: platform team.",
].join("\n");

export const createSchedule: Change = {
  address: 'project["acme/api"].pipeline_schedule["Nightly"]',
  parent: 'project["acme/api"]',
  collection: "pipeline_schedules",
  key: "Nightly",
  action: "create",
  fields: [
    { field: "description", after: "Nightly" },
    { field: "cron", after: "0 2 * * *" },
    { field: "active", after: true },
  ],
  source: { file: "manifests/acme.yaml", line: 12, col: 7 },
};

export const updateVariable: Change = {
  address: 'project["acme/api"].pipeline_schedule["Nightly"].variable["DEPLOY_ENV"]',
  parent: 'project["acme/api"].pipeline_schedule["Nightly"]',
  collection: "variables",
  key: "DEPLOY_ENV",
  action: "update",
  fields: [
    { field: "value", before: "staging", after: "production" },
    { field: "variable_type", before: "env_var", after: "env_var" },
  ],
  liveId: 7,
};

export const updateToken: Change = {
  address: 'group["acme/platform"].variable["API_TOKEN"]',
  parent: 'group["acme/platform"]',
  collection: "variables",
  key: "API_TOKEN",
  action: "update",
  fields: [{ field: "value", before: "(sensitive)", after: "(sensitive)", sensitive: true }],
};

export const updateSettings: Change = {
  address: "instance.application_settings",
  collection: "application_settings",
  key: "application_settings",
  action: "update",
  fields: [
    { field: "signup_enabled", before: true, after: false },
    {
      field: "max_artifacts_size",
      before: 100,
      after: 200,
      note: "needs a restart of the platform to take effect",
    },
    { field: "after_sign_up_text", before: LONG_DESCRIPTION_BEFORE, after: LONG_DESCRIPTION_AFTER },
  ],
};

export const replaceEnvironment: Change = {
  address: 'project["acme/api"].protected_environment["production"]',
  parent: 'project["acme/api"]',
  collection: "protected_environments",
  key: "production",
  action: "replace",
  reason: "protected environments have no update call: replaced",
  fields: [
    { field: "required_approval_count", before: 1, after: 2, forcesReplacement: true },
    { field: "deploy_access_levels", before: [{ access_level: 40 }], after: [{ access_level: 40 }] },
  ],
  liveId: 31,
};

export const deleteHook: Change = {
  address: 'instance.system_hook["https://hooks.example.com/old"]',
  collection: "system_hooks",
  key: "https://hooks.example.com/old",
  action: "delete",
  reason: "not in the manifests; system_hooks prune policy is delete",
  fields: [
    { field: "url", before: "https://hooks.example.com/old" },
    { field: "token", before: "(write-only)", writeOnly: true },
    { field: "push_events", before: false },
  ],
  liveId: 4,
};

export const unmanagedBadge: Change = {
  address: 'group["acme/platform"].badge["coverage"]',
  parent: 'group["acme/platform"]',
  collection: "badges",
  key: "coverage",
  action: "unmanaged",
  fields: [{ field: "link_url", before: "https://ci.example.com/coverage" }],
  liveId: 12,
};

export const everyAction: Change[] = [
  createSchedule,
  updateVariable,
  updateToken,
  updateSettings,
  replaceEnvironment,
  deleteHook,
  unmanagedBadge,
];

/** A plan with `n` changes spread over many targets and kinds, for truncation tests. */
export function bigPlan(n: number): Plan {
  const actions = ["create", "update", "replace", "delete"] as const;
  const changes: Change[] = [];
  for (let i = 0; i < n; i++) {
    const action = actions[i % actions.length]!;
    const project = `acme/service-${i % 37}`;
    changes.push({
      address: `project["${project}"].variable["VAR_${i}"]`,
      parent: `project["${project}"]`,
      collection: i % 3 === 0 ? "variables" : "badges",
      key: `VAR_${i}`,
      action,
      fields: [
        {
          field: "value",
          ...(action === "create" ? {} : { before: `old value ${i} with some \`\`\` backticks` }),
          ...(action === "delete" ? {} : { after: `new value ${i}` }),
        },
        { field: "description", before: `line one\nline ${i}`, after: `line one\nline ${i + 1}\n</details>` },
      ],
    });
  }
  return makePlan(changes, {
    errors: [{ address: 'project["acme/x"]', message: "group acme/x does not exist" }],
    warnings: [{ address: 'project["acme/y"]', message: 'deprecated <setting> & "quoted"' }],
  });
}

/**
 * Changes whose text is awkward to render: markup and backticks in addresses and values, multi-line values on
 * every side, a reason with a CRLF, an update that sets a field that was unset and unsets one that was set.
 */
export const awkward: Change[] = [
  {
    address: 'project["a&b/<x>"].badge["`tick` | pipe"]',
    parent: 'project["a&b/<x>"]',
    collection: "badges",
    key: "`tick` | pipe",
    action: "create",
    fields: [
      { field: "description", after: LONG_DESCRIPTION_AFTER },
      { field: "name", after: "`tick` | pipe" },
    ],
  },
  {
    address: 'project["a&b/<x>"].badge["gone"]',
    parent: 'project["a&b/<x>"]',
    collection: "badges",
    key: "gone",
    action: "delete",
    reason: "line one\r\nline two",
    fields: [{ field: "description", before: LONG_DESCRIPTION_BEFORE }],
  },
  {
    address: 'project["a&b/<x>"].badge["keep"]',
    parent: 'project["a&b/<x>"]',
    collection: "badges",
    key: "keep",
    action: "update",
    fields: [
      { field: "image_url", after: "https://new" },
      { field: "link_url", before: "https://old" },
    ],
  },
  {
    address: 'project["a&b/<x>"].badge["other"]',
    parent: 'project["a&b/<x>"]',
    collection: "badges",
    key: "other",
    action: "unmanaged",
    fields: [{ field: "description", before: LONG_DESCRIPTION_BEFORE }],
  },
];

/** A plan of the awkward changes, with an error at a manifest place, a warning and a target. */
export function awkwardPlan(): Plan {
  return makePlan(awkward, {
    errors: [
      {
        address: 'project["a"]',
        message: "bad <thing> & *stars*",
        source: { file: "m.yaml", line: 2, col: 3 },
      },
    ],
    warnings: [{ address: "instance", message: "careful" }],
    targets: ['project["a&b/<x>"]'],
  });
}

/** A badge of a project: created (its link as the value) or, for any other action, its link as the live value. */
export function projectBadge(
  project: string,
  name = "coverage",
  action: Change["action"] = "create",
): Change {
  const link = `https://ci.example/${name}`;
  return {
    address: `project["${project}"].badge["${name}"]`,
    parent: `project["${project}"]`,
    collection: "badges",
    key: name,
    action,
    fields: [action === "create" ? { field: "link_url", after: link } : { field: "link_url", before: link }],
  };
}
