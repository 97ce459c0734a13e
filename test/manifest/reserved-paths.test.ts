/**
 * The platform's reserved paths (GitLab 13.12, `Gitlab::PathRegex`): which group and project paths it refuses to
 * create as "<path> is a reserved name", at the boundaries where a wrong rule or list would differ.
 */
import { describe, expect, it } from "vitest";
import { reservedProblem, reservedWord } from "../../src/manifest/reserved.js";

const project = (path: string) => reservedWord(path, "projects")?.word;
const group = (path: string) => reservedWord(path, "groups")?.word;

describe("reserved project paths", () => {
  it("refuses a word of the platform's project routes, in any case, by the project's own segment", () => {
    expect(project("acme/new")).toBe("new");
    expect(project("acme/NEW")).toBe("new");
    expect(project("acme/Tree")).toBe("tree");
    expect(project("acme/create_dir")).toBe("create_dir");
    expect(project("acme/platform/wikis")).toBe("wikis");
    expect(project("alice/badges")).toBe("badges");
  });

  it("allows a path that only contains a word, starts or ends with one, or shares its first letters", () => {
    for (const path of ["acme/new-api", "acme/renew", "acme/news", "acme/ne", "acme/new.js", "acme/_new"]) {
      expect(project(path), path).toBeUndefined();
    }
    // `create` is a word, and so is `create_dir`: neither makes `create_app` one.
    expect(project("acme/create_app")).toBeUndefined();
  });

  it("allows a word of the top-level list, and the first segment of a word of several segments", () => {
    for (const path of [
      "acme/admin",
      "acme/api",
      "acme/snippets",
      "acme/environments",
      "acme/info",
      "acme/gitlab-lfs",
    ]) {
      expect(project(path), path).toBeUndefined();
    }
  });

  it("does not look at the project's group: only its own segment counts", () => {
    expect(project("new/api")).toBeUndefined();
    expect(project("acme/edit/api")).toBeUndefined();
  });
});

describe("reserved group paths", () => {
  it("refuses a top-level group named by a top-level word, in any case", () => {
    expect(group("admin")).toBe("admin");
    expect(group("ADMIN")).toBe("admin");
    expect(group("s")).toBe("s");
    expect(group(".well-known")).toBe(".well-known");
    expect(group("sitemap.xml.gz")).toBe("sitemap.xml.gz");
    expect(group("Robots.TXT")).toBe("robots.txt");
  });

  it("allows a top-level group that only contains a top-level word, or a word of the project list", () => {
    for (const path of ["admin-tools", "sadmin", "s3", "sitemap.xml.gzip", "apis", "edit", "new", "tree"]) {
      expect(group(path), path).toBeUndefined();
    }
    // Words the platform reserved in other versions, not in 13.12 (moved below /-/, or never top-level words).
    for (const path of [
      "abuse_reports",
      "autocomplete",
      "invites",
      "sent_notifications",
      "ci",
      "u",
      "koding",
    ]) {
      expect(group(path), path).toBeUndefined();
    }
  });

  it("refuses a subgroup named by a word of the project list, at any depth, in any case", () => {
    expect(group("acme/edit")).toBe("edit");
    expect(group("acme/platform/Blob")).toBe("blob");
    expect(group("acme/raw")).toBe("raw");
  });

  it("allows a subgroup named by a top-level word, or that only contains a project word", () => {
    for (const path of [
      "acme/admin",
      "acme/api",
      "acme/help",
      "acme/edit-team",
      "acme/editor",
      "acme/rawdata",
    ]) {
      expect(group(path), path).toBeUndefined();
    }
  });

  it("refuses a word of several segments only as that run, ending at the new group", () => {
    expect(group("acme/info/lfs/objects")).toBe("info/lfs/objects");
    expect(group("acme/INFO/Lfs/objects")).toBe("info/lfs/objects");
    expect(group("acme/environments/folders")).toBe("environments/folders");
    expect(group("acme/gitlab-lfs/objects")).toBe("gitlab-lfs/objects");
    for (const path of [
      "acme/info",
      "acme/info/lfs",
      "acme/info/lfs/objects2",
      "acme/info/lfs2/objects",
      "acme/environments",
      "acme/folders",
      "acme/objects",
    ]) {
      expect(group(path), path).toBeUndefined();
    }
  });

  it("checks a run that starts at the root against the top-level list only", () => {
    // The root segment is a top-level group: `environments` and `info` are not top-level words.
    expect(group("environments/folders")).toBeUndefined();
    expect(group("info/lfs/objects")).toBeUndefined();
  });

  it("leaves a run that ends above the new group to the ancestor it names", () => {
    // acme/environments/folders is refused itself; below it, the platform would refuse too, but the fault is there.
    expect(group("acme/environments/folders/team")).toBeUndefined();
    expect(group("acme/new/team")).toBeUndefined();
  });
});

describe("the message", () => {
  it("says the path is reserved, for what, and how to fix it", () => {
    expect(reservedProblem("acme/New", "projects")).toBe(
      '"acme/New" is a path the platform reserves: "new" is a word of its own routes (compared in any case), refused as a project\'s path, so creating the project fails; choose another path (one that merely contains the word, such as "new-app", is allowed)',
    );
    expect(reservedProblem("admin", "groups")).toContain("refused as a top-level group's path");
    expect(reservedProblem("acme/info/lfs/objects", "groups")).toBe(
      '"acme/info/lfs/objects" is a path the platform reserves: "info/lfs/objects" is one of its own routes (compared in any case), refused as the end of a subgroup\'s full path, so creating the subgroup fails; choose another path for it',
    );
    expect(reservedProblem("acme/new-app", "projects")).toBeUndefined();
  });
});
