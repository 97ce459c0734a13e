import type { Ctx, SandboxApp } from "../app.js";
import { authenticateNonGet, findProject } from "../auth.js";
import { notFound, routeNotFound } from "../errors.js";
import {
  CI_YMLS,
  DOCKERFILES,
  type FileTemplate,
  GITIGNORES,
  LICENSES,
  type LicenseTemplate,
} from "../template-data.js";

/**
 * File templates (contract "Templates" and "Template"; the platform's 13.x `lib/api/project_templates.rb`,
 * `lib/api/templates.rb`, `LicenseTemplate`, `Gitlab::Template::BaseTemplate`). The data is a small selection kept in
 * `../template-data.ts` (no network): licenses `apache-2.0 bsd-2-clause bsd-3-clause isc mit ncsa unlicense`,
 * Dockerfiles, .gitignore files and CI configurations. Where the contract is silent the sandbox follows the platform:
 *
 * - `GET /projects/:id/templates/:type`: `type` is `dockerfiles`, `gitignores`, `gitlab_ci_ymls` (the platform's
 *   name, which clients use), `platform_ci_ymls` (the contract's neutral name for the same templates) or `licenses`;
 *   another is 400 `type does not have a valid value` (the platform's `metrics_dashboard_ymls` is not modelled).
 *   `[{key, name}]` (key = name for file templates), paginated, in the platform's order: category by category
 *   (languages before "Global" .gitignores, general CI templates before "Pages"), by name within one; licenses by key.
 * - `GET /projects/:id/templates/:type/:key`: `{name, content}`; for a license the License entity (`key, name,
 *   nickname, html_url, source_url, popular, description, conditions, permissions, limitations, content`) with the
 *   placeholders expanded as `LicenseTemplate#resolve!` does: `[year]`/`[yyyy]` the current year, `[project]`
 *   (also `<project>`, `[description]`, the GPL's "one line ... what it does.") the `project` parameter when given,
 *   `[fullname]` (also `[name of copyright owner]`, `[name of author]`) `fullname`, else the caller's name.
 *   A missing one is `404 Template Not Found`. `source_template_project_id` (integer) is accepted; the instance's
 *   custom templates [licensed] are not modelled.
 * - Both need only read access to the project (`authenticate_non_get!`, `find_project!`): anonymous callers read
 *   public projects; an invisible project is `404 Project Not Found`.
 * - Instance level, which the contract lists only as moved and deprecated (Versioning) but real clients call
 *   (python-gitlab `gl.licenses`/`gl.gitignores`/`gl.gitlabciymls`/`gl.dockerfiles`, ruby-gitlab, GitLab::API::v4,
 *   go-gitlab), as the platform's 13.x `lib/api/templates.rb` serves it without authentication:
 *   `GET /templates/licenses` (`popular=true` only the popular ones, `popular=false` only the others; the full
 *   License entity, content included, placeholders unexpanded), `GET /templates/licenses/:key` (expanded as above;
 *   `404 License Not Found`), `GET /templates/<type>` (`[{key, name}]`) and `GET /templates/<type>/:key`
 *   (`{name, content}`; `404 dockerfile Not Found`, `404 gitignore Not Found`, `404 gitlab_ci_yml Not Found`) for
 *   `dockerfiles`, `gitignores`, `gitlab_ci_ymls` and `platform_ci_ymls`. The key must match `[\w.-]+` (else the
 *   catch-all `{"error":"404 Not Found"}`). Lists are paginated.
 */

interface FileType {
  templates: readonly FileTemplate[];
  /** `template_type.to_s.singularize`, as the instance-level not-found message names it. */
  singular: string;
}

const FILE_TYPES: Record<string, FileType> = {
  dockerfiles: { templates: DOCKERFILES, singular: "dockerfile" },
  gitignores: { templates: GITIGNORES, singular: "gitignore" },
  gitlab_ci_ymls: { templates: CI_YMLS, singular: "gitlab_ci_yml" },
  platform_ci_ymls: { templates: CI_YMLS, singular: "platform_ci_yml" },
};

const TYPES = [...Object.keys(FILE_TYPES), "licenses"];

/** Category by category (in the data's order), then by name. */
function ordered(templates: readonly FileTemplate[]): FileTemplate[] {
  const categories = [...new Set(templates.map((t) => t.category))];
  return [...templates].sort(
    (a, b) =>
      categories.indexOf(a.category) - categories.indexOf(b.category) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

const PROJECT_PLACEHOLDER = /[<{[](project|description|one\sline\s.+\swhat\sit\sdoes\.)[>}\]]/gi;
const YEAR_PLACEHOLDER = /[<{[](year|yyyy)[>}\]]/gi;
const FULLNAME_PLACEHOLDER = /[<{[](fullname|name\sof\s(author|copyright\sowner))[>}\]]/gi;

/** `LicenseTemplate#resolve!`: the text with its placeholders filled in (literally; no `$` patterns). */
function resolveLicense(ctx: Ctx, text: string): string {
  const str = (name: string) => {
    const v = ctx.params[name];
    return typeof v === "string" && v.trim() !== "" ? v : undefined;
  };
  const project = str("project");
  const fullname = str("fullname") ?? ctx.user?.name;
  let out = text.replace(YEAR_PLACEHOLDER, () => String(ctx.store.now().getUTCFullYear()));
  if (project !== undefined) out = out.replace(PROJECT_PLACEHOLDER, () => project);
  if (fullname !== undefined && fullname !== "") out = out.replace(FULLNAME_PLACEHOLDER, () => fullname);
  return out;
}

/** The License entity (`LicenseBasic` plus the metadata and content). */
function licenseJson(l: LicenseTemplate, content: string): Record<string, unknown> {
  return {
    key: l.key,
    name: l.name,
    nickname: l.nickname,
    html_url: l.html_url,
    source_url: l.source_url,
    popular: l.popular,
    description: l.description,
    conditions: l.conditions,
    permissions: l.permissions,
    limitations: l.limitations,
    content,
  };
}

/** `TemplatesList`: `{key, name}` (a file template's key is its name). */
const listEntry = (t: LicenseTemplate | FileTemplate) => ({ key: "key" in t ? t.key : t.name, name: t.name });

/** The instance-level routes' requirement `name: /[\w.-]+/`: anything else never reaches them. */
function instanceKey(ctx: Ctx): string {
  const key = ctx.path["key"]!;
  if (!/^[\w.-]+$/.test(key)) throw routeNotFound();
  return key;
}

export function register(app: SandboxApp): void {
  app.get("/templates/licenses", (ctx) => {
    const { popular } = ctx.declare({ popular: { type: "boolean" } });
    const rows = LICENSES.filter((l) => popular === undefined || l.popular === popular);
    return ctx.paginate(rows, (l) => licenseJson(l, l.content));
  });

  app.get("/templates/licenses/:key", (ctx) => {
    const key = instanceKey(ctx);
    const license = LICENSES.find((l) => l.key === key);
    if (!license) throw notFound("License");
    return licenseJson(license, resolveLicense(ctx, license.content));
  });

  for (const [type, { templates, singular }] of Object.entries(FILE_TYPES)) {
    app.get(`/templates/${type}`, (ctx) => ctx.paginate(ordered(templates), listEntry));
    app.get(`/templates/${type}/:key`, (ctx) => {
      const key = instanceKey(ctx);
      const template = templates.find((t) => t.name === key);
      if (!template) throw notFound(singular);
      return { name: template.name, content: template.content };
    });
  }

  const projectType = (ctx: Ctx) => {
    authenticateNonGet(ctx);
    const { type } = ctx.declare({
      type: { type: "string", required: true, values: TYPES },
      source_template_project_id: { type: "integer" },
    });
    findProject(ctx, ctx.path["id"]!);
    return type;
  };

  app.get("/projects/:id/templates/:type", (ctx) => {
    const type = projectType(ctx);
    if (type === "licenses") return ctx.paginate(LICENSES, listEntry);
    return ctx.paginate(ordered(FILE_TYPES[type]!.templates), listEntry);
  });

  app.get("/projects/:id/templates/:type/:key", (ctx) => {
    const type = projectType(ctx);
    ctx.declare({ project: { type: "string" }, fullname: { type: "string" } });
    const key = ctx.path["key"]!;
    if (type === "licenses") {
      const license = LICENSES.find((l) => l.key === key);
      if (!license) throw notFound("Template");
      return licenseJson(license, resolveLicense(ctx, license.content));
    }
    const template = FILE_TYPES[type]!.templates.find((t) => t.name === key);
    if (!template) throw notFound("Template");
    return { name: template.name, content: template.content };
  });
}
