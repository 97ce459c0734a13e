/**
 * A Terraform state of the platform's provider (the JSON `terraform show -json` prints, or a state file of format
 * 4) as forgeform manifests. Resources group by owner: everything a project owns (its settings, variables,
 * members, shares, protected branches and tags, labels, hooks, deploy keys and tokens, schedules with their
 * variables, badges, milestones, triggers) becomes one entry of that project, likewise for groups and the instance.
 * Owners and users named by id are found among the state's resources and data sources (`gitlab_project`,
 * `gitlab_group`, `gitlab_user`, `data.gitlab_users`). The state holds every attribute, set or computed: values
 * that are the platform's defaults (the schema's `default`) and empty ones are left out, as export leaves them out.
 */
import { namePart } from "../export/export.js";
import { loadSchemas } from "../manifest/index.js";
import { At, accessLevel, fileOf } from "./common.js";
import type { SNode } from "./source.js";
import type { Obj, Origin, Target } from "./target.js";

interface Resource {
  at: At;
  address: string;
  mode: string;
  type: string;
  values: At;
  /** Attributes the state marks sensitive. */
  sensitive: Set<string>;
}

/** Attributes that say how Terraform works, or what the platform computes: never part of a manifest. */
const META = new Set([
  "id",
  "timeouts",
  "archive_on_destroy",
  "permanently_delete_on_destroy",
  "permanently_remove_on_delete",
  "skip_subresources_on_destroy",
  "unassign_issuables_on_destroy",
  "validate_past_expiration_date",
  "web_url",
  "http_url_to_repo",
  "ssh_url_to_repo",
  "runners_token",
  "avatar_url",
  "avatar_hash",
  "empty_repo",
  "full_name",
  "full_path",
  "path_with_namespace",
  "path",
  "namespace_id",
  "parent_id",
  "initialize_with_readme",
  "template_name",
  "template_project_id",
  "use_custom_template",
  "group_with_project_templates_id",
  "skip_wait_for_default_branch_protection",
  "color_hex",
  "label_id",
  "hook_id",
  "project_id",
  "group_id",
  "pipeline_schedule_id",
  "pipeline_trigger_id",
  "deploy_key_id",
  "branch_protection_id",
  "milestone_id",
  "iid",
  "created_at",
  "updated_at",
  "expired",
  "revoked",
  "rendered_image_url",
  "rendered_link_url",
  "owner",
  "access_level_description",
  "alert_status",
  "disabled_until",
  "signing_token_present",
  "repository_update_events",
]);

/** Attributes of the provider named otherwise in the platform's 13.12 interface, and how the value turns. */
const RENAMES: Record<string, { to: string; value?: (v: unknown) => unknown; note?: string }> = {
  visibility_level: { to: "visibility" },
  emails_enabled: {
    to: "emails_disabled",
    value: (v) => (typeof v === "boolean" ? !v : v),
    note: "emails_enabled is the newer opposite of emails_disabled, which the 13.12 interface takes: written emails_disabled with the value turned around",
  },
  public_builds: { to: "public_jobs", note: "public_builds is the older name of public_jobs" },
  tags: { to: "topics", note: "tags is the older name of topics" },
};

const isEmpty = (v: unknown) =>
  v === null ||
  v === undefined ||
  v === "" ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

class Converter {
  private readonly resources: Resource[] = [];
  private readonly projectsById = new Map<string, string>();
  private readonly groupsById = new Map<string, string>();
  private readonly usersById = new Map<string, string>();
  private readonly schedules = new Map<string, Obj>();
  private readonly schemas = loadSchemas();

  constructor(readonly t: Target) {}

  collect(root: At): void {
    const values = root.get("values");
    if (values) {
      const walk = (module: At) => {
        for (const r of module.get("resources")?.items() ?? []) this.add(r);
        for (const c of module.get("child_modules")?.items() ?? []) walk(c);
      };
      const rootModule = values.get("root_module");
      if (rootModule) walk(rootModule);
      return;
    }
    // A state file (format 4): resources with their instances.
    if (root.get("resources") && root.get("version")) {
      for (const r of root.get("resources")!.items()) {
        const type = r.get("type")?.text ?? "";
        const name = r.get("name")?.text ?? "";
        const mode = r.get("mode")?.text ?? "managed";
        const module = r.get("module")?.text;
        for (const inst of r.get("instances")?.items() ?? []) {
          const key = inst.get("index_key");
          const index = key === undefined ? "" : `[${JSON.stringify(key.value)}]`;
          const address = `${module ? `${module}.` : ""}${mode === "data" ? "data." : ""}${type}.${name}${index}`;
          const attrs = inst.get("attributes");
          if (attrs) this.push(inst, address, mode, type, attrs, new Set());
        }
      }
      return;
    }
    this.t.report.notConverted(
      root.node.at,
      "",
      "this is neither the JSON of terraform show -json (values.root_module) nor a state file (version 4, resources)",
    );
  }

  private add(r: At): void {
    const type = r.get("type")?.text ?? "";
    const values = r.get("values");
    if (!values) return;
    const sensitive = new Set<string>();
    for (const [k, v] of r.get("sensitive_values")?.entries() ?? []) if (v.value === true) sensitive.add(k);
    this.push(r, r.get("address")?.text ?? type, r.get("mode")?.text ?? "managed", type, values, sensitive);
  }

  private push(
    at: At,
    address: string,
    mode: string,
    type: string,
    values: At,
    sensitive: Set<string>,
  ): void {
    const labelled = new At(values.node, values.path, values.keyAt, address);
    this.resources.push({ at, address, mode, type, values: labelled, sensitive });
    const v = (k: string) => labelled.get(k)?.text;
    if (type === "gitlab_project" && v("id") && v("path_with_namespace"))
      this.projectsById.set(v("id")!, v("path_with_namespace")!);
    if (type === "gitlab_group" && v("id") && v("full_path")) this.groupsById.set(v("id")!, v("full_path")!);
    if (type === "gitlab_user" && v("id") && v("username")) this.usersById.set(v("id")!, v("username")!);
    if (type === "gitlab_users")
      for (const u of labelled.get("users")?.items() ?? [])
        if (u.get("id")?.text && u.get("username")?.text)
          this.usersById.set(u.get("id")!.text!, u.get("username")!.text!);
  }

  run(): void {
    // Owners first, so that their entries come before what refers to them.
    const order = (r: Resource) => (r.type === "gitlab_group" ? 0 : r.type === "gitlab_project" ? 1 : 2);
    for (const r of [...this.resources].sort((a, b) => order(a) - order(b))) {
      if (r.mode === "data" || !r.type.startsWith("gitlab_")) continue;
      const handler = HANDLERS[r.type];
      if (!handler) {
        this.t.report.notConverted(r.at.node.at, r.address, `forgeform does not manage ${r.type}`);
        continue;
      }
      handler(this, r);
    }
  }

  /** The full path of a project named by id or path, or undefined after reporting it. */
  project(r: Resource, attr = "project"): string | undefined {
    return this.owner(r, attr, "project", this.projectsById);
  }

  /** The full path of a group named by id or path, or undefined after reporting it. */
  group(r: Resource, attr = "group"): string | undefined {
    return this.owner(r, attr, "group", this.groupsById);
  }

  private owner(r: Resource, attr: string, kind: string, byId: Map<string, string>): string | undefined {
    const at = r.values.get(attr);
    const ref = at?.text;
    if (at === undefined || ref === undefined) {
      this.t.report.notConverted(r.at.node.at, r.address, `the resource names no ${attr}`);
      return undefined;
    }
    if (!/^\d+$/.test(ref)) return ref;
    const path = byId.get(ref);
    if (!path)
      this.t.report.notConverted(
        at.node.at,
        at.source,
        `the ${kind} with id ${ref} is not in the state (no gitlab_${kind} resource or data source with that id): not converted; add a data "gitlab_${kind}" for it to the configuration, or name the ${kind} by its path`,
      );
    return path;
  }

  user(at: At): string | undefined {
    const id = at.text;
    const name = id === undefined ? undefined : this.usersById.get(id);
    if (name === undefined)
      this.t.report.notConverted(
        at.node.at,
        at.source,
        `the user with id ${id ?? "?"} is not in the state (no gitlab_user resource or data source with that id): forgeform names users by username; add a data "gitlab_user" for it, or add the member by hand`,
      );
    return name;
  }

  projectEntry(r: Resource, path: string): Obj {
    return this.t.entry("projects", path, { at: r.at.node.at, source: r.address }, fileOf(path));
  }

  groupEntry(r: Resource, path: string): Obj {
    const obj = this.t.entry("groups", path, { at: r.at.node.at, source: r.address }, fileOf(path));
    this.t.keep(obj);
    return obj;
  }

  instanceEntry(r: Resource): Obj {
    return this.t.instanceEntry({ at: r.at.node.at, source: r.address }, "instance.yaml");
  }

  /** The item schema's default of a field, for leaving out what the platform has anyway. */
  private defaultOf(schemaFile: string, field: string): unknown {
    const schema = this.schemas.files[schemaFile];
    const prop = (schema?.properties as Record<string, Record<string, unknown>> | undefined)?.[field];
    // The default sits beside a `$ref` (a visibility) or in the schema it names.
    return prop ? (prop["default"] ?? this.schemas.resolve(prop)["default"]) : undefined;
  }

  /**
   * Copies a resource's attributes into `obj`: meta attributes and `skip` left out, renames applied, empty values
   * and the schema's defaults left out, sensitive ones (and `secret`) made references.
   */
  attributes(
    r: Resource,
    obj: Obj,
    schemaFile: string,
    names: string[],
    options: { skip?: string[]; secret?: string[]; levels?: string[]; path?: string } = {},
  ): void {
    // In the order the schema lists its fields (name, description, visibility first), as a person writes them.
    const order = Object.keys((this.schemas.files[schemaFile]?.properties ?? {}) as Obj);
    const rank = (attr: string) => {
      const i = order.indexOf(RENAMES[attr]?.to ?? attr);
      return i < 0 ? order.length : i;
    };
    const entries = r.values.entries().sort(([a], [b]) => rank(a) - rank(b));
    for (const [attr, a] of entries) {
      if (META.has(attr) || options.skip?.includes(attr)) continue;
      const rename = RENAMES[attr];
      const name = rename?.to ?? attr;
      let value = rename?.value ? rename.value(a.value) : a.value;
      if (options.levels?.includes(attr)) {
        if (a.value === null || a.value === "") continue;
        const level = accessLevel(a.value);
        if (!level || "unknown" in level) {
          this.t.report.notConverted(
            a.node.at,
            a.source,
            `${JSON.stringify(a.value)} is not an access level of the platform's 13.12 interface`,
          );
          continue;
        }
        if (level.renamed)
          this.t.report.check(
            a.node.at,
            a.source,
            `the access level ${JSON.stringify(a.value)} is written ${level.level}`,
          );
        value = level.level;
      }
      if (r.sensitive.has(attr) || options.secret?.includes(attr)) {
        if (isEmpty(a.value)) continue;
        this.t.set(
          obj,
          name,
          this.t.secret([...names, attr === "value" ? "" : attr], a.valueOrigin, `the ${attr}`),
          a.valueOrigin,
        );
        continue;
      }
      if (isEmpty(value) && !(value === false && this.defaultOf(schemaFile, name) === true)) continue;
      // A name that is the path's last segment is what the platform gives anyway; a full ref is the branch.
      if (name === "name" && options.path !== undefined && value === last(options.path)) continue;
      if (name === "ref" && typeof value === "string") value = value.replace(/^refs\/heads\//, "");
      const byDefault = this.defaultOf(schemaFile, name);
      if (byDefault !== undefined && JSON.stringify(byDefault) === JSON.stringify(value)) continue;
      if (rename?.note) this.t.report.check(a.keyAt, a.source, rename.note);
      this.t.set(
        obj,
        name,
        typeof value === "string"
          ? this.t.text(value, [...names, name === "url" ? "" : name], a.valueOrigin)
          : value,
        a.valueOrigin,
      );
    }
  }

  /** An item of a collection of an owner, with the resource's attributes. */
  item(
    owner: Obj,
    collection: string,
    r: Resource,
    schemaFile: string,
    names: string[],
    options: Parameters<Converter["attributes"]>[4] = {},
    /** Fields written first (an identity the resource names otherwise, as `branch` names a protected branch). */
    first: [string, unknown, Origin][] = [],
  ): Obj {
    const list = this.t.list(owner, collection, { at: r.at.node.at, source: r.address });
    const item: Obj = {};
    for (const [k, v, o] of first) this.t.set(item, k, v, o);
    this.attributes(r, item, schemaFile, [...names, ...this.identityNames(r, schemaFile)], options);
    list.push(item);
    return item;
  }

  /**
   * What names an item in variable names: a variable's key (and its scope, other than all), a hook's host, a
   * schedule's description, a token's name.
   */
  private identityNames(r: Resource, schemaFile: string): string[] {
    const identity = this.schemas.files[schemaFile]?.["x-identity"];
    const fields =
      typeof identity === "string" ? [identity] : Array.isArray(identity) ? (identity as string[]) : [];
    return fields
      .map((f) => {
        const v = r.values.get(f)?.text ?? "";
        return f === "url" && v ? namePart(v) : v === "*" ? "" : v;
      })
      .filter((p) => p !== "");
  }

  /** `allowed_to_push` and the like: users and groups by id, named from the state. */
  allowances(r: Resource, item: Obj, field: string): void {
    const at = r.values.get(field);
    if (!at?.isList || at.items().length === 0) {
      delete item[field];
      return;
    }
    const out: Obj[] = [];
    for (const a of at.items()) {
      const one: Obj = {};
      const user = a.get("user_id");
      const group = a.get("group_id");
      const level = a.get("access_level");
      if (user?.value !== null && user?.value !== undefined && user.value !== 0) {
        const name = this.user(user);
        if (name) this.t.set(one, "user", name, user.valueOrigin);
      } else if (group?.value !== null && group?.value !== undefined && group.value !== 0) {
        const path = this.groupsById.get(String(group.value));
        if (path) this.t.set(one, "group", path, group.valueOrigin);
        else
          this.t.report.notConverted(
            group.node.at,
            group.source,
            `the group with id ${String(group.value)} is not in the state`,
          );
      } else if (level && level.value !== null && level.value !== "") {
        const l = accessLevel(level.value);
        if (l && !("unknown" in l)) this.t.set(one, "access_level", l.level, level.valueOrigin);
      } else if (a.get("deploy_key_id")?.value)
        this.t.report.notConverted(
          a.node.at,
          a.source,
          "forgeform's allowances are users, groups and roles, not deploy keys",
        );
      if (Object.keys(one).length > 0) out.push(one);
    }
    this.t.set(item, field, out, at.origin);
  }

  schedule(project: string, id: string): Obj | undefined {
    return this.schedules.get(`${project}#${id}`);
  }

  rememberSchedule(project: string, id: string | undefined, item: Obj): void {
    if (id !== undefined) this.schedules.set(`${project}#${id}`, item);
  }

  origin(r: Resource): Origin {
    return { at: r.at.node.at, source: r.address };
  }
}

type Handler = (c: Converter, r: Resource) => void;

const last = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** A collection item of a project (`project` names it) or a group (`group` names it). */
function projectItem(
  collection: string,
  schemaFile: string,
  options: Parameters<Converter["attributes"]>[4] = {},
): Handler {
  return (c, r) => {
    const path = c.project(r);
    if (!path) return;
    c.item(c.projectEntry(r, path), collection, r, schemaFile, [last(path)], {
      skip: ["project"],
      ...options,
    });
  };
}

function groupItem(
  collection: string,
  schemaFile: string,
  options: Parameters<Converter["attributes"]>[4] = {},
): Handler {
  return (c, r) => {
    const path = c.group(r);
    if (!path) return;
    c.item(c.groupEntry(r, path), collection, r, schemaFile, [last(path)], { skip: ["group"], ...options });
  };
}

function membership(kind: "project" | "group"): Handler {
  return (c, r) => {
    const path = kind === "project" ? c.project(r) : c.group(r, "group_id");
    const userAt = r.values.get("user_id");
    if (!path || !userAt) return;
    const user = c.user(userAt);
    if (!user) return;
    const owner = kind === "project" ? c.projectEntry(r, path) : c.groupEntry(r, path);
    c.item(
      owner,
      "members",
      r,
      `${kind}-member.schema.json`,
      [last(path)],
      { skip: ["project", "group_id", "user_id"], levels: ["access_level"] },
      [["user", user, userAt.valueOrigin]],
    );
  };
}

function share(kind: "project" | "group"): Handler {
  return (c, r) => {
    const path = kind === "project" ? c.project(r) : c.group(r, "group_id");
    const sharedAt = r.values.get(kind === "project" ? "group_id" : "share_group_id");
    if (!path || !sharedAt) return;
    const shared = c.group(r, kind === "project" ? "group_id" : "share_group_id");
    if (!shared) return;
    const owner = kind === "project" ? c.projectEntry(r, path) : c.groupEntry(r, path);
    c.item(
      owner,
      "shared_with_groups",
      r,
      `${kind}-share.schema.json`,
      [last(path)],
      { skip: ["project", "group_id", "share_group_id", "member_role_id"], levels: ["group_access"] },
      [["group", shared, sharedAt.valueOrigin]],
    );
  };
}

const HANDLERS: Record<string, Handler> = {
  gitlab_group: (c, r) => {
    const path = r.values.get("full_path")?.text;
    if (!path) {
      c.t.report.notConverted(r.at.node.at, r.address, "the group's full_path is not in the state");
      return;
    }
    c.attributes(r, c.groupEntry(r, path), "group.schema.json", [last(path)], {
      path,
      skip: ["default_branch_protection_defaults", "push_rules"],
    });
    for (const block of ["default_branch_protection_defaults", "push_rules"]) {
      const at = r.values.get(block);
      if (at && !isEmpty(at.value))
        c.t.report.notConverted(
          at.keyAt,
          at.source,
          `forgeform does not manage ${block.replaceAll("_", " ")}`,
        );
    }
  },
  gitlab_project: (c, r) => {
    const path = r.values.get("path_with_namespace")?.text;
    if (!path) {
      c.t.report.notConverted(
        r.at.node.at,
        r.address,
        "the project's path_with_namespace is not in the state",
      );
      return;
    }
    c.attributes(r, c.projectEntry(r, path), "project.schema.json", [last(path)], {
      path,
      skip: [
        "container_expiration_policy",
        "push_rules",
        "import_url",
        "import_url_username",
        "import_url_password",
        "forked_from_project_id",
        "mirror",
        "mirror_trigger_builds",
        "mirror_overwrites_diverged_branches",
        "only_mirror_protected_branches",
        "avatar",
      ],
    });
    for (const block of ["container_expiration_policy", "push_rules", "import_url", "mirror"]) {
      const at = r.values.get(block);
      if (at && !isEmpty(at.value))
        c.t.report.notConverted(
          at.keyAt,
          at.source,
          `forgeform does not manage ${block.replaceAll("_", " ")}`,
        );
    }
  },
  gitlab_project_variable: projectItem("variables", "ci-variable.schema.json", { secret: ["value"] }),
  gitlab_group_variable: groupItem("variables", "ci-variable.schema.json", { secret: ["value"] }),
  gitlab_instance_variable: (c, r) =>
    c.item(c.instanceEntry(r), "variables", r, "instance-variable.schema.json", [], { secret: ["value"] }),
  gitlab_project_membership: membership("project"),
  gitlab_group_membership: membership("group"),
  gitlab_project_share_group: share("project"),
  gitlab_group_share_group: share("group"),
  gitlab_branch_protection: (c, r) => {
    const item = protection(c, r, "protected_branches", "protected-branch.schema.json", "branch", {
      skip: ["allowed_to_push", "allowed_to_merge", "allowed_to_unprotect"],
      levels: ["push_access_level", "merge_access_level", "unprotect_access_level"],
    });
    if (item)
      for (const f of ["allowed_to_push", "allowed_to_merge", "allowed_to_unprotect"])
        c.allowances(r, item, f);
  },
  gitlab_tag_protection: (c, r) => {
    const item = protection(c, r, "protected_tags", "protected-tag.schema.json", "tag", {
      skip: ["allowed_to_create"],
      levels: ["create_access_level"],
    });
    const allowed = r.values.get("allowed_to_create");
    if (item && allowed && !isEmpty(allowed.value)) c.allowances(r, item, "allowed_to_create");
  },
  gitlab_project_label: projectItem("labels", "label.schema.json"),
  gitlab_label: projectItem("labels", "label.schema.json"),
  gitlab_group_label: groupItem("labels", "label.schema.json"),
  gitlab_project_hook: projectItem("hooks", "hook.schema.json", { secret: ["token"] }),
  gitlab_group_hook: groupItem("hooks", "hook.schema.json", { secret: ["token"] }),
  gitlab_project_deploy_token: (c, r) => deployToken(c, r, "project"),
  gitlab_group_deploy_token: (c, r) => deployToken(c, r, "group"),
  gitlab_deploy_token: (c, r) => deployToken(c, r, r.values.get("group")?.text ? "group" : "project"),
  gitlab_pipeline_schedule: (c, r) => {
    const path = c.project(r);
    if (!path) return;
    const item = c.item(
      c.projectEntry(r, path),
      "pipeline_schedules",
      r,
      "pipeline-schedule.schema.json",
      [last(path)],
      {
        skip: ["project", "inputs"],
      },
    );
    const inputs = r.values.get("inputs");
    if (inputs && !isEmpty(inputs.value))
      c.t.report.notConverted(
        inputs.keyAt,
        inputs.source,
        "pipeline inputs came after the platform's 13.12 interface",
      );
    c.rememberSchedule(path, r.values.get("pipeline_schedule_id")?.text, item);
  },
  gitlab_pipeline_schedule_variable: (c, r) => {
    const path = c.project(r);
    const id = r.values.get("pipeline_schedule_id")?.text;
    if (!path || id === undefined) return;
    const schedule = c.schedule(path, id);
    if (!schedule) {
      c.t.report.notConverted(
        r.at.node.at,
        r.address,
        `its schedule (id ${id} of ${path}) is not a gitlab_pipeline_schedule of the state: forgeform declares a schedule's variables with the schedule`,
      );
      return;
    }
    c.item(
      schedule,
      "variables",
      r,
      "schedule-variable.schema.json",
      [last(path), String(schedule["description"] ?? "")],
      {
        skip: ["project"],
        secret: ["value"],
      },
    );
  },
  gitlab_project_badge: badge("project"),
  gitlab_group_badge: badge("group"),
  gitlab_deploy_key: projectItem("deploy_keys", "deploy-key.schema.json"),
  gitlab_deploy_key_enable: projectItem("deploy_keys", "deploy-key.schema.json", {
    skip: ["project", "key_id"],
  }),
  gitlab_project_milestone: projectItem("milestones", "milestone.schema.json", {
    skip: ["project", "web_url"],
  }),
  gitlab_system_hook: (c, r) =>
    c.item(c.instanceEntry(r), "system_hooks", r, "system-hook.schema.json", [], { secret: ["token"] }),
  gitlab_pipeline_trigger: (c, r) => {
    const path = c.project(r);
    if (!path) return;
    c.item(c.projectEntry(r, path), "triggers", r, "trigger.schema.json", [last(path)], {
      skip: ["project", "token"],
    });
    const token = r.values.get("token");
    if (token && !isEmpty(token.value))
      c.t.report.check(
        token.keyAt,
        token.source,
        "the trigger keeps its token: forgeform matches the trigger by its description and never reads the token (name a token_file to receive a new one when a trigger is created)",
      );
  },
  gitlab_application_settings: (c, r) => {
    const schema = loadSchemas().files["application-settings.schema.json"]!;
    const known = new Set(Object.keys((schema.properties ?? {}) as Obj));
    const inst = c.instanceEntry(r);
    const settings: Obj = {};
    c.t.set(inst, "application_settings", settings, c.origin(r));
    const unknown: string[] = [];
    const skip: string[] = [];
    for (const [attr, a] of r.values.entries()) {
      if (META.has(attr) || known.has(RENAMES[attr]?.to ?? attr)) continue;
      skip.push(attr);
      if (!isEmpty(a.value)) unknown.push(attr);
    }
    c.attributes(r, settings, "application-settings.schema.json", [], { skip });
    if (unknown.length > 0)
      c.t.report.notConverted(
        r.at.node.at,
        r.address,
        `${unknown.length} attribute${unknown.length === 1 ? " is" : "s are"} not settings forgeform manages (the state holds them whether set or computed): ${unknown.join(", ")}`,
      );
  },
};

/** A protected branch or tag of a project: its name (the resource's `branch` or `tag`) first, then its levels. */
function protection(
  c: Converter,
  r: Resource,
  collection: string,
  schemaFile: string,
  nameAttr: string,
  options: { skip: string[]; levels: string[] },
): Obj | undefined {
  const path = c.project(r);
  if (!path) return undefined;
  const name = r.values.get(nameAttr);
  return c.item(
    c.projectEntry(r, path),
    collection,
    r,
    schemaFile,
    [last(path)],
    { skip: ["project", nameAttr, ...options.skip], levels: options.levels },
    [["name", name?.text ?? "", name?.valueOrigin ?? c.origin(r)]],
  );
}

function badge(kind: "project" | "group"): Handler {
  return (c, r) => {
    const name = r.values.get("name")?.text;
    if (!name) {
      c.t.report.notConverted(
        r.at.node.at,
        r.address,
        "the badge has no name: forgeform finds badges by name; give it one (the platform shows it in the badge's tooltip)",
      );
      return;
    }
    (kind === "project"
      ? projectItem("badges", "badge.schema.json")
      : groupItem("badges", "badge.schema.json"))(c, r);
  };
}

function deployToken(c: Converter, r: Resource, kind: "project" | "group"): void {
  const path = kind === "project" ? c.project(r) : c.group(r);
  if (!path) return;
  const owner = kind === "project" ? c.projectEntry(r, path) : c.groupEntry(r, path);
  c.item(owner, "deploy_tokens", r, "deploy-token.schema.json", [last(path)], {
    skip: ["project", "group", "token"],
  });
  const token = r.values.get("token");
  if (token && !isEmpty(token.value))
    c.t.report.check(
      token.keyAt,
      token.source,
      "the token in the state stays valid and is not written anywhere: forgeform writes a deploy token to token_file only when it creates one",
    );
}

/** Converts one Terraform state (JSON) into `t`. */
export function convertTerraform(t: Target, root: SNode): void {
  const c = new Converter(t);
  c.collect(new At(root, []));
  c.run();
}
