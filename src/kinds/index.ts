/** Every kind forgeform manages. Adding a kind: one file in this folder, its schema in schemas/, one line here. */
import { applicationSettingsKind } from "./application-settings.js";
import { badgeKind } from "./badge.js";
import { broadcastMessageKind } from "./broadcast-message.js";
import { groupVariableKind, instanceVariableKind, projectVariableKind } from "./ci-variable.js";
import { deployKeyKind } from "./deploy-key.js";
import { deployTokenKind } from "./deploy-token.js";
import { epicKind } from "./epic.js";
import { epicIssueKind } from "./epic-issue.js";
import { errorTrackingKind } from "./error-tracking.js";
import { groupKind } from "./group.js";
import { hookKind } from "./hook.js";
import type { Kind } from "./kind.js";
import { labelKind } from "./label.js";
import { memberKind } from "./member.js";
import { milestoneKind } from "./milestone.js";
import { instanceNotificationSettingsKind, notificationSettingsKind } from "./notification-settings.js";
import { pipelineScheduleKind } from "./pipeline-schedule.js";
import { projectKind } from "./project.js";
import { protectedBranchKind } from "./protected-branch.js";
import { protectedEnvironmentKind } from "./protected-environment.js";
import { protectedTagKind } from "./protected-tag.js";
import { scheduleVariableKind } from "./schedule-variable.js";
import { scimUserKind } from "./scim-user.js";
import { shareKind } from "./share.js";
import { systemHookKind } from "./system-hook.js";
import { triggerKind } from "./trigger.js";
import { wikiPageKind } from "./wiki-page.js";

export const kinds: Kind[] = [
  groupKind,
  projectKind,
  applicationSettingsKind,
  systemHookKind,
  broadcastMessageKind,
  pipelineScheduleKind,
  scheduleVariableKind,
  badgeKind,
  protectedEnvironmentKind,
  deployKeyKind,
  triggerKind,
  milestoneKind,
  wikiPageKind,
  instanceNotificationSettingsKind,
  notificationSettingsKind,
  errorTrackingKind,
  scimUserKind,
  epicKind,
  epicIssueKind,
  labelKind,
  hookKind,
  deployTokenKind,
  projectVariableKind,
  groupVariableKind,
  instanceVariableKind,
  memberKind,
  shareKind,
  protectedBranchKind,
  protectedTagKind,
];
