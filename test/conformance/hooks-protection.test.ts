import { describe } from "vitest";
import { pythonCase } from "./python-gitlab.js";

describe("conformance: python-gitlab hooks, protected branches and tags, deploy tokens", () => {
  pythonCase({
    title: "project hooks and group hooks (licensed)",
    script: "project_group_hooks.py",
    sandbox: { edition: "licensed" },
  });
  pythonCase({
    title: "protected branches and tags (licensed)",
    script: "protected_refs.py",
    sandbox: { edition: "licensed" },
  });
  pythonCase({ title: "deploy tokens", script: "deploy_tokens.py" });
});
