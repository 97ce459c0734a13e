import type { SandboxApp } from "../app.js";
import { requireAuth } from "../auth.js";

/** `GET /version`: 13.12.0-ee on the licensed edition, 13.12.0 on core (the community edition has no suffix). */
export const SANDBOX_REVISION = "f0rg3f0";

/** The platform release the sandbox answers as. */
export function platformVersion(licensed: boolean): string {
  return licensed ? "13.12.0-ee" : "13.12.0";
}

export function register(app: SandboxApp): void {
  app.get("/version", (ctx) => {
    requireAuth(ctx);
    return { version: platformVersion(app.licensed), revision: SANDBOX_REVISION };
  });
}
