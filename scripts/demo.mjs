#!/usr/bin/env node
// `npm run demo`: starts the built-in sandbox platform in-process, seeded with examples/sandbox-fixture.yaml,
// and runs `forgeform plan` on the example manifests against it. The plan shows creates, updates, replacements
// and unmanaged objects. Nothing outside this process is touched. Uses the build in lib/ (npm run build).
import { fileURLToPath } from "node:url";
import { main } from "../lib/cli/index.js";
import { startSandbox } from "../lib/sandbox/server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
process.chdir(root);

// The example manifests read secrets from the environment; the demo supplies stand-in values.
const demoSecrets = {
  API_DEPLOY_TOKEN: "demo-deploy-token",
  API_SIGNING_KEY: "demo-signing-key",
  ASSET_PROXY_SECRET: "demo-asset-proxy-secret",
  AUDIT_HOOK_TOKEN: "demo-hook-token",
  CHAT_HOOK_KEY: "demo-chat-hook-key",
  CHAT_HOOK_TOKEN: "demo-chat-hook-token",
  DEPLOY_HOOK_TOKEN: "demo-deploy-hook-token",
  FORGEFORM_SCIM_TOKEN: "demo-scim-token",
  RENOVATE_TOKEN: "demo-renovate-token",
  TOOLKIT_NPM_TOKEN: "demo-npm-token",
};
for (const [name, value] of Object.entries(demoSecrets)) process.env[name] ??= value;

const adminToken = "demo-admin-token";
const sandbox = await startSandbox({
  fixture: "examples/sandbox-fixture.yaml",
  adminToken,
  userToken: "demo-user-token",
});
process.stderr.write(
  `Sandbox platform listening at ${sandbox.url} (seeded from examples/sandbox-fixture.yaml)\n`,
);
const manifests = [
  "examples/instance.yaml",
  "examples/templates.yaml",
  "examples/groups.yaml",
  "examples/projects.yaml",
  "examples/policies.yaml",
  "examples/variables.yaml",
  "examples/access.yaml",
];
process.stderr.write(`Running: forgeform plan ${manifests.join(" ")}\n\n`);

process.env.FORGEFORM_URL = sandbox.url;
process.env.FORGEFORM_TOKEN = adminToken;
let code;
try {
  code = await main(["node", "forgeform", "plan", "--detailed-exitcode", ...manifests]);
} finally {
  await sandbox.stop();
}
if (code === 0 || code === 2) {
  process.stderr.write(
    "\nThat was a plan: nothing was changed. Against your own platform, set FORGEFORM_URL and FORGEFORM_TOKEN,\n" +
      "then run `forgeform plan <manifests>` and `forgeform apply <manifests>`. See README.md.\n",
  );
  process.exitCode = 0;
} else {
  process.exitCode = code;
}
