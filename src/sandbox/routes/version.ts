import type { SandboxApp } from "../app.js";
import { requireAuth } from "../auth.js";

/** `GET /version`: 13.12.0-ee on the licensed edition, 13.12.0 on core (the community edition has no suffix). */
export const SANDBOX_REVISION = "f0rg3f0";

export function register(app: SandboxApp): void {
  app.get("/version", (ctx) => {
    requireAuth(ctx);
    return { version: app.licensed ? "13.12.0-ee" : "13.12.0", revision: SANDBOX_REVISION };
  });
}
