import { describe } from "vitest";
import { pythonCase } from "./python-gitlab.js";

describe("conformance: python-gitlab pipeline schedules", () => {
  pythonCase({ title: "CRUD, variables, play, take_ownership", script: "pipeline_schedules.py" });
});
