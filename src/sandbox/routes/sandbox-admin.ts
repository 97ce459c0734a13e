import type { SandboxApp } from "../app.js";
import { requireAdmin } from "../auth.js";

/**
 * Sandbox-only debugging endpoints (not part of the platform), under `/-/sandbox/` at the root:
 * `GET /-/sandbox/state` returns the whole state (administrators only; tokens are left out).
 */
export function register(app: SandboxApp): void {
  app.get(
    "/-/sandbox/state",
    (ctx) => {
      requireAdmin(ctx);
      const { tokens: _tokens, ...rest } = ctx.store.data;
      return { ...rest, edition: app.edition };
    },
    { mount: "root" },
  );
}
