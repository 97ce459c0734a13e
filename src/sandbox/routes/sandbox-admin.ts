import type { SandboxApp } from "../app.js";
import { requireAdmin } from "../auth.js";

/**
 * Sandbox-only debugging endpoints (not part of the platform), under `/-/sandbox/` at the root:
 * `GET /-/sandbox/state` returns the whole state (administrators only) without credentials: no personal access
 * tokens, and no field anywhere in it that holds a credential or a digest of one, whatever module keeps it (runner
 * tokens, trigger tokens, job, SCIM and hook token digests, the digests of write-only settings).
 */

/**
 * Whether a field holds a credential or a digest of one: a string under a name that says token, secret or password
 * (`runners_token`, `token`, `token_sha256`), or a write-only setting's digest (`sha256:<hex>`). Flags and numbers
 * about tokens (`token_sent`, `container_registry_token_expire_delay`) are not secrets and stay.
 */
function isSecret(key: string, value: unknown): boolean {
  return (
    typeof value === "string" && (/token|secret|password/i.test(key) || /^sha256:[0-9a-f]{64}$/.test(value))
  );
}

/** A copy of `value` without the fields {@link isSecret} finds, at any depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (!isSecret(key, v)) out[key] = withoutSecrets(v);
  return out;
}

export function register(app: SandboxApp): void {
  app.get(
    "/-/sandbox/state",
    (ctx) => {
      requireAdmin(ctx);
      const { tokens: _tokens, ...rest } = ctx.store.data;
      return { ...(withoutSecrets(rest) as Record<string, unknown>), edition: app.edition };
    },
    { mount: "root" },
  );
}
