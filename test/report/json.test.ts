/** The outcome of apply as JSON: the plan's JSON form, kind "apply", and each change's outcome. */
import { describe, expect, it } from "vitest";
import { renderPlanJson } from "../../src/plan/json.js";
import { renderApplyJson } from "../../src/report/json.js";
import { createSchedule, deleteHook, makePlan, updateVariable } from "./fixtures.js";

describe("renderApplyJson", () => {
  it("is the plan's JSON with kind apply and each outcome; recovered only for a create found on re-reading", () => {
    const plan = makePlan([createSchedule, updateVariable, deleteHook]);
    const json = JSON.parse(
      renderApplyJson(plan, [
        { address: createSchedule.address, action: "create", status: "done", recovered: true },
        {
          address: updateVariable.address,
          action: "update",
          status: "failed",
          message: "PUT ... 403",
          recovered: false,
        },
        { address: deleteHook.address, action: "delete", status: "skipped", message: "after a failure" },
      ]),
    ) as Record<string, unknown>;
    expect(json["outcomes"]).toEqual([
      { address: createSchedule.address, action: "create", status: "done", recovered: true },
      { address: updateVariable.address, action: "update", status: "failed", message: "PUT ... 403" },
      { address: deleteHook.address, action: "delete", status: "skipped", message: "after a failure" },
    ]);
    const { kind, outcomes: _outcomes, ...rest } = json;
    expect(kind).toBe("apply");
    const { kind: planKind, ...planRest } = JSON.parse(renderPlanJson(plan)) as Record<string, unknown>;
    expect(planKind).toBe("plan");
    expect(rest).toEqual(planRest);
  });
});
