import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

/**
 * `two_factor_grace_period` at its boundaries, for groups and the instance: 0 (no grace period) is a value like any
 * other, the largest the platform's integer column holds is accepted, one past it and negative ones are refused
 * with the model's message and change nothing.
 */

const LIMIT = 2_147_483_647;

describe("two_factor_grace_period: 0, the limit, one past it, negative", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture: { groups: [{ path: "g", two_factor_grace_period: 12 }] } });
  });
  afterAll(() => c.sb.stop());

  const accepted: [string, number][] = [
    ["0", 0],
    ["the limit", LIMIT],
  ];
  const refused: [string, number, string][] = [
    ["one past the limit", LIMIT + 1, `must be less than or equal to ${LIMIT}`],
    ["negative", -1, "must be greater than or equal to 0"],
  ];

  for (const [what, value] of accepted) {
    it(`${what} is accepted by PUT and POST /groups, as JSON and as a form, and by the application settings`, async () => {
      const put = await c.admin("PUT", "/groups/g", { two_factor_grace_period: value });
      expect([put.status, (put.body as { two_factor_grace_period: number }).two_factor_grace_period]).toEqual(
        [200, value],
      );
      const form = await c.call("PUT", "/groups/g", { form: `two_factor_grace_period=${value}` });
      expect((form.body as { two_factor_grace_period: number }).two_factor_grace_period).toBe(value);
      const path = `grace-${value}`;
      const post = await c.admin("POST", "/groups", { name: path, path, two_factor_grace_period: value });
      expect([
        post.status,
        (post.body as { two_factor_grace_period: number }).two_factor_grace_period,
      ]).toEqual([201, value]);
      const settings = await c.admin("PUT", "/application/settings", {
        require_two_factor_authentication: true,
        two_factor_grace_period: value,
      });
      expect(settings.status).toBe(200);
      expect((settings.body as { two_factor_grace_period: number }).two_factor_grace_period).toBe(value);
    });
  }

  for (const [what, value, message] of refused) {
    it(`${what} is refused with the model's message, and nothing changes`, async () => {
      await c.admin("PUT", "/groups/g", { two_factor_grace_period: 12 });
      const error = { message: { two_factor_grace_period: [message] } };
      const put = await c.admin("PUT", "/groups/g", { two_factor_grace_period: value });
      expect([put.status, put.body]).toEqual([400, error]);
      expect(
        ((await c.admin("GET", "/groups/g")).body as { two_factor_grace_period: number })
          .two_factor_grace_period,
      ).toBe(12);
      const post = await c.admin("POST", "/groups", {
        name: "refused",
        path: "refused",
        two_factor_grace_period: value,
      });
      expect(post.status).toBe(400);
      expect((await c.admin("GET", "/groups/refused")).status).toBe(404);
      await c.admin("PUT", "/application/settings", { two_factor_grace_period: 24 });
      const settings = await c.admin("PUT", "/application/settings", { two_factor_grace_period: value });
      expect([settings.status, settings.body]).toEqual([400, error]);
      expect(
        ((await c.admin("GET", "/application/settings")).body as { two_factor_grace_period: number })
          .two_factor_grace_period,
      ).toBe(24);
    });
  }
});
