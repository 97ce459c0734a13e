import type { SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject, hasPublicAccess, requireAuth } from "../auth.js";
import { forbidden } from "../errors.js";
import { FixtureError } from "../fixture.js";
import type { Store } from "../store.js";

/**
 * Dependencies [licensed, unstable] (contract "Dependencies" and "Dependency"; the platform's 13.x
 * `ee/lib/api/dependencies.rb`, `Security::DependencyListService`, `EE::API::Entities::Dependency`). The route is
 * absent on the core edition (`{"error":"404 Not Found"}`). Where the contract is silent the sandbox follows the
 * platform:
 *
 * - `GET /projects/:id/dependencies` needs a signed-in user (`authenticate!`: 401); an invisible project is
 *   `404 Project Not Found`; reading the repository (`read_dependencies` rests on `download_code`: Reporter and above,
 *   or anyone with the project's public access, so not a Guest of a private project) else 403.
 * - `package_manager`: one value, an array (`package_manager[]=npm&package_manager[]=yarn`) or comma-joined
 *   (`npm,yarn`), each of `bundler`, `composer`, `maven`, `npm`, `pip`, `yarn`; another is 400
 *   `package_manager does not have a valid value`.
 * - Sorted by name (the service's default). Paginated, as the contract says arrays are (13.x itself presents the
 *   whole array without pagination headers; later releases paginate).
 * - Entity: `name, version, package_manager, dependency_file_path`, and `vulnerabilities` (`[{name, severity}]`)
 *   only for callers who may read the security dashboard (`read_security_resource`: Developer and above,
 *   administrators); for others the key is absent.
 * - The sandbox runs no scanners: the list is the fixture's, as the latest dependency-scanning report would give it.
 *
 * Fixture key `dependencies`: a list of `{ project, dependencies: [{ name, version, package_manager,
 * dependency_file_path, vulnerabilities?: [{ name, severity }] }] }` (severity: info, unknown, low, medium, high,
 * critical).
 */

export const PACKAGE_MANAGERS = ["bundler", "composer", "maven", "npm", "pip", "yarn"] as const;
const SEVERITIES = ["info", "unknown", "low", "medium", "high", "critical"];

interface DependencyRec {
  project_id: number;
  name: string;
  version: string;
  package_manager: string;
  dependency_file_path: string;
  vulnerabilities: { name: string; severity: string }[];
}

interface DependenciesArea {
  rows: DependencyRec[];
}

function dependenciesArea(store: Store): DependenciesArea {
  return store.area<DependenciesArea>("dependencies", () => ({ rows: [] }));
}

function seed(value: unknown, store: Store, source: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${source}: ${msg}`);
  const mapping = (v: unknown, where: string): Record<string, unknown> => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw fail(`${where} must be a mapping`);
    return v as Record<string, unknown>;
  };
  const text = (o: Record<string, unknown>, key: string, where: string): string => {
    if (typeof o[key] !== "string" || o[key] === "") throw fail(`${where}.${key} is required (a string)`);
    return o[key];
  };
  if (!Array.isArray(value)) throw fail("dependencies must be a list");
  const area = dependenciesArea(store);
  value.forEach((raw, i) => {
    const where = `dependencies[${i}]`;
    const entry = mapping(raw, where);
    const project = store.projectByFullPath(text(entry, "project", where));
    if (!project) throw fail(`${where}.project "${String(entry["project"])}" is not in projects`);
    if (!Array.isArray(entry["dependencies"])) throw fail(`${where}.dependencies must be a list`);
    entry["dependencies"].forEach((rawDep, k) => {
      const w = `${where}.dependencies[${k}]`;
      const d = mapping(rawDep, w);
      const manager = text(d, "package_manager", w);
      if (!(PACKAGE_MANAGERS as readonly string[]).includes(manager)) {
        throw fail(`${w}.package_manager must be one of ${PACKAGE_MANAGERS.join(", ")}`);
      }
      const vulns = d["vulnerabilities"] ?? [];
      if (!Array.isArray(vulns)) throw fail(`${w}.vulnerabilities must be a list`);
      area.rows.push({
        project_id: project.id,
        name: text(d, "name", w),
        version: text(d, "version", w),
        package_manager: manager,
        dependency_file_path: text(d, "dependency_file_path", w),
        vulnerabilities: vulns.map((rawVuln, n) => {
          const v = mapping(rawVuln, `${w}.vulnerabilities[${n}]`);
          const severity = text(v, "severity", `${w}.vulnerabilities[${n}]`).toLowerCase();
          if (!SEVERITIES.includes(severity))
            throw fail(`${w}.vulnerabilities[${n}].severity must be one of ${SEVERITIES.join(", ")}`);
          return { name: text(v, "name", `${w}.vulnerabilities[${n}]`), severity };
        }),
      });
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("dependencies", (value, { store, source }) => seed(value, store, source));

  app.get(
    "/projects/:id/dependencies",
    (ctx) => {
      const user = requireAuth(ctx);
      const p = ctx.declare({
        package_manager: { type: "string[]", split: true, values: PACKAGE_MANAGERS },
      });
      const project = findProject(ctx, ctx.path["id"]!);
      const level = effectiveProjectLevel(ctx.store, user, project);
      if (level < ACCESS.reporter && !hasPublicAccess(user, project)) throw forbidden();
      const securityDashboard = level >= ACCESS.developer;
      const managers = p.package_manager;
      const rows = dependenciesArea(ctx.store)
        .rows.filter(
          (d) =>
            d.project_id === project.id && (managers === undefined || managers.includes(d.package_manager)),
        )
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return ctx.paginate(rows, (d) => ({
        name: d.name,
        version: d.version,
        package_manager: d.package_manager,
        dependency_file_path: d.dependency_file_path,
        ...(securityDashboard ? { vulnerabilities: d.vulnerabilities.map((v) => ({ ...v })) } : {}),
      }));
    },
    { licensed: true },
  );
}
