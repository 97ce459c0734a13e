/** The example manifests, their demo fixture, and the secrets they read from the environment. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export const EXAMPLES = join(import.meta.dirname, "../../examples");
export const EXAMPLES_FIXTURE = join(EXAMPLES, "sandbox-fixture.yaml");

/** Every manifest file of examples/ (the fixture is the platform's state, not a manifest). */
export const EXAMPLE_MANIFESTS = readdirSync(EXAMPLES)
  .filter((f) => /\.ya?ml$/.test(f) && !f.startsWith("sandbox-fixture"))
  .map((f) => join(EXAMPLES, f));

/** Values for the `${env:}` references of the examples (and the fixture's SCIM token). */
export const EXAMPLES_ENV: Record<string, string> = {
  API_DEPLOY_TOKEN: "examples-deploy-token",
  API_SIGNING_KEY: "examples-signing-key",
  ASSET_PROXY_SECRET: "examples-asset-proxy-secret",
  AUDIT_HOOK_TOKEN: "examples-hook-token",
  FORGEFORM_SCIM_TOKEN: "demo-scim-token",
  RENOVATE_TOKEN: "examples-renovate-token",
  TOOLKIT_NPM_TOKEN: "examples-npm-token",
};
