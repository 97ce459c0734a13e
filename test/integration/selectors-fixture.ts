/**
 * The instance the selector tests run against: groups acme (with platform, legacy and tools, which holds a subgroup
 * and an archived project) and other.
 */
export const fixture = {
  groups: [
    { path: "acme" },
    { path: "acme/platform" },
    { path: "acme/legacy" },
    { path: "acme/tools" },
    { path: "acme/tools/inner" },
    { path: "other" },
  ],
  projects: [
    { path: "acme/platform/api", default_branch: "main" },
    { path: "acme/platform/web", default_branch: "main" },
    { path: "acme/legacy/monolith" },
    { path: "acme/tools/cli" },
    { path: "acme/tools/old", archived: true },
    { path: "other/thing" },
  ],
};
