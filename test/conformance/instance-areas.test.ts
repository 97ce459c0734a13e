import { describe } from "vitest";
import { pythonCase } from "./python-gitlab.js";

/**
 * python-gitlab's own managers against the sandbox for the instance-level areas: system hooks (`gl.hooks`), broadcast
 * messages (`gl.broadcastmessages`), application settings (`gl.settings`), deploy keys (`project.keys`,
 * `gl.deploykeys`) and SSH key lookup (`gl.keys`). Each script runs against a fresh in-process sandbox. Skipped, with
 * the reason in the test name, only when Debian's python-gitlab is not installed for /usr/bin/python3.
 */
const scripts = [
  { name: "system_hooks.py", edition: "licensed" as const },
  { name: "broadcast_messages.py", edition: "licensed" as const },
  { name: "application_settings.py", edition: "licensed" as const },
  { name: "application_settings.py", edition: "core" as const },
  { name: "deploy_keys.py", edition: "licensed" as const },
];

describe("python-gitlab conformance: instance areas", () => {
  for (const s of scripts) {
    pythonCase({
      title: `${s.name} (${s.edition} edition)`,
      script: s.name,
      sandbox: { edition: s.edition },
    });
  }
});
