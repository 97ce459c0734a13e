import { describe } from "vitest";
import { pythonCase } from "./python-gitlab.js";

describe("conformance: python-gitlab triggers, badges, protected environments", () => {
  pythonCase({ title: "pipeline triggers", script: "triggers.py" });
  pythonCase({ title: "project and group badges", script: "badges.py" });
  pythonCase({
    title: "protected environments (licensed)",
    script: "protected_environments.py",
    sandbox: { edition: "licensed" },
  });
});
