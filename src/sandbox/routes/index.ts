import type { SandboxApp } from "../app.js";
import * as accessRequests from "./access-requests.js";
import * as applicationSettings from "./application-settings.js";
import * as badges from "./badges.js";
import * as broadcastMessages from "./broadcast-messages.js";
import * as ciVariables from "./ci-variables.js";
import * as dependencies from "./dependencies.js";
import * as deployKeys from "./deploy-keys.js";
import * as deployTokens from "./deploy-tokens.js";
import * as deployments from "./deployments.js";
import * as epics from "./epics.js";
import * as errorTracking from "./error-tracking.js";
import * as events from "./events.js";
import * as groupImportExport from "./group-import-export.js";
import * as groups from "./groups.js";
import * as hooks from "./hooks.js";
import * as issues from "./issues.js";
import * as jobs from "./jobs.js";
import * as labels from "./labels.js";
import * as members from "./members.js";
import * as milestones from "./milestones.js";
import * as namespaces from "./namespaces.js";
import * as notificationSettings from "./notification-settings.js";
import * as pipelineSchedules from "./pipeline-schedules.js";
import * as projectImportExport from "./project-import-export.js";
import * as projects from "./projects.js";
import * as protectedEnvironments from "./protected-environments.js";
import * as protectedRefs from "./protected-refs.js";
import * as sandboxAdmin from "./sandbox-admin.js";
import * as scim from "./scim.js";
import * as shares from "./shares.js";
import * as snippets from "./snippets.js";
import * as systemHooks from "./system-hooks.js";
import * as templates from "./templates.js";
import * as triggers from "./triggers.js";
import * as users from "./users.js";
import * as version from "./version.js";
import * as wikis from "./wikis.js";

/** Every route module; each exports `register(app)`. Add new modules to this list (one line each). */
export const modules: { register(app: SandboxApp): void }[] = [
  groups,
  groupImportExport,
  projects,
  members,
  shares,
  labels,
  users,
  namespaces,
  version,
  sandboxAdmin,
  systemHooks,
  broadcastMessages,
  applicationSettings,
  deployKeys,
  pipelineSchedules,
  milestones,
  issues,
  wikis,
  notificationSettings,
  errorTracking,
  scim,
  epics,
  triggers,
  badges,
  protectedEnvironments,
  accessRequests,
  snippets,
  jobs,
  events,
  deployments,
  templates,
  dependencies,
  ciVariables,
  projectImportExport,
  hooks,
  protectedRefs,
  deployTokens,
];

export function registerAll(app: SandboxApp): void {
  for (const m of modules) m.register(app);
}
