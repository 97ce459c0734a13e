/** Every kind forgeform manages. Adding a kind: one file in this folder, its schema in schemas/, one line here. */
import { applicationSettingsKind } from "./application-settings.js";
import { badgeKind } from "./badge.js";
import { broadcastMessageKind } from "./broadcast-message.js";
import { groupKind } from "./group.js";
import type { Kind } from "./kind.js";
import { pipelineScheduleKind } from "./pipeline-schedule.js";
import { projectKind } from "./project.js";
import { protectedEnvironmentKind } from "./protected-environment.js";
import { scheduleVariableKind } from "./schedule-variable.js";
import { systemHookKind } from "./system-hook.js";

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
];
