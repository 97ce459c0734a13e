/** The example manifests, their demo fixture, and the secrets they read from the environment. */
import { cpSync, readdirSync } from "node:fs";
import { basename, join, relative } from "node:path";

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
  CHAT_HOOK_KEY: "examples-chat-hook-key",
  CHAT_HOOK_TOKEN: "examples-chat-hook-token",
  DEPLOY_HOOK_TOKEN: "examples-deploy-hook-token",
  FORGEFORM_SCIM_TOKEN: "demo-scim-token",
  RENOVATE_TOKEN: "examples-renovate-token",
  TOOLKIT_NPM_TOKEN: "examples-npm-token",
};

/**
 * The example manifests copied into `dir`, for tests that plan or apply them: apply writes into the manifests' own
 * tree (a deploy token's token_file, under secrets/; backups under .forgeform/), which must not be the checkout,
 * and what an earlier apply of the checkout's examples left there (git-ignored) must not change a test's plan.
 */
export function copyExamples(dir: string): string[] {
  const to = join(dir, "examples");
  const left = (src: string) => /^(secrets|\.forgeform)(\/|$)/.test(relative(EXAMPLES, src));
  cpSync(EXAMPLES, to, { recursive: true, filter: (src) => !left(src) });
  return EXAMPLE_MANIFESTS.map((f) => join(to, basename(f)));
}
