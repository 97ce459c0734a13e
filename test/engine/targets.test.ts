/**
 * `--target` as a rule on paths: a target selects itself and what is below it, segment by segment, never a sibling
 * whose name merely starts with the same letters (`pay` is not `payments`). Boundaries first, then properties over
 * paths built to share prefixes.
 */
import { describe, expect, it } from "vitest";
import { checkTargetsSelected, inTargets, normalizeTargets, TargetError } from "../../src/engine/targets.js";
import { fc, fullPath, segment } from "../property.js";

/** The rule written as plainly as it can be: the target's segments begin the key's, compared without case. */
function modelIn(key: string, target: string): boolean {
  const k = key.toLowerCase().split("/");
  const t = target.toLowerCase().split("/");
  return t.length <= k.length && t.every((part, i) => part === k[i]);
}

/** A key related to a target the ways that go wrong: itself, below it, a sibling sharing its letters, above it. */
const related = fc
  .tuple(fullPath, fc.constantFrom("", "/x", "x", "-x", "/x/y", "x/y", ".", "/"), fc.boolean())
  .map(([target, suffix, shout]) => {
    const key = target + (suffix === "/" ? "" : suffix);
    return { target, key: shout ? key.toUpperCase() : key };
  });

describe("inTargets: boundaries", () => {
  it.each([
    ["payments", "payments", true],
    ["payments/core", "payments", true],
    ["payments/core/ledger", "payments", true],
    ["Payments/Core", "payments/core", true],
    ["payments", "PAYMENTS", true],
    ["payments", "pay", false],
    ["pay", "payments", false],
    ["payments-old", "payments", false],
    ["payments.old/core", "payments", false],
    ["paymentsx/core", "payments", false],
    ["payments", "payments/core", false],
    ["payments/cor", "payments/core", false],
    ["payments/core2", "payments/core", false],
    ["p", "pa", false],
  ])("%s under --target %s: %s", (key, target, expected) => {
    expect(inTargets(key, [target])).toBe(expected);
  });

  it("everything is in scope without targets, and a key is in scope when any one target holds it", () => {
    expect(inTargets("anything/at/all", [])).toBe(true);
    expect(inTargets("b/c", ["a", "b"])).toBe(true);
    expect(inTargets("c", ["a", "b"])).toBe(false);
    expect(inTargets("ab", ["a", "b"])).toBe(false);
  });
});

describe("inTargets: properties", () => {
  it("selects a key exactly when the target's segments begin the key's, without regard to case", () => {
    fc.assert(
      fc.property(related, ({ key, target }) => {
        expect(inTargets(key, [target])).toBe(modelIn(key, target));
      }),
    );
    fc.assert(
      fc.property(fullPath, fullPath, (key, target) => {
        expect(inTargets(key, [target])).toBe(modelIn(key, target));
      }),
    );
  });

  it("with several targets, selects what at least one of them selects", () => {
    fc.assert(
      fc.property(fullPath, fc.array(fullPath, { minLength: 1, maxLength: 4 }), (key, targets) => {
        expect(inTargets(key, targets)).toBe(targets.some((t) => modelIn(key, t)));
      }),
    );
  });

  it("a target selects every path below it, and no parent of it", () => {
    fc.assert(
      fc.property(fullPath, fc.array(segment, { minLength: 1, maxLength: 3 }), (target, below) => {
        expect(inTargets(`${target}/${below.join("/")}`, [target])).toBe(true);
        const parent = target.split("/").slice(0, -1).join("/");
        if (parent !== "") expect(inTargets(parent, [target])).toBe(false);
      }),
    );
  });
});

describe("normalizeTargets", () => {
  it("drops spaces and slashes around a target and makes repeated slashes one", () => {
    expect(normalizeTargets([" payments/ ", "/a//b///c/", "instance"])).toEqual([
      "payments",
      "a/b/c",
      "instance",
    ]);
  });

  it("takes a group or project as a plan names it, as its path", () => {
    expect(normalizeTargets(['project["acme/api"]', ' group["acme"] ', 'group["a/b/"]'])).toEqual([
      "acme/api",
      "acme",
      "a/b",
    ]);
    // A path that merely starts like an address is a path.
    expect(normalizeTargets(["groupware/app", "projects"])).toEqual(["groupware/app", "projects"]);
  });

  it.each([
    ['project["acme/api"].badge["docs"]', "acme/api"],
    ['group["acme"].variable["K#*"]', "acme"],
    ['instance.system_hook["https://x.example"]', "instance"],
    ["instance.application_settings", "instance"],
  ])("refuses %s, an object inside a target, naming the target that holds it", (target, holder) => {
    expect(() => normalizeTargets([target])).toThrow(TargetError);
    expect(() => normalizeTargets([target])).toThrow(
      `--target ${JSON.stringify(target)} names one object; a target is a group or project path with everything below it, or "instance": use --target ${JSON.stringify(holder)}`,
    );
  });

  it.each(["", " ", "/", "//", " / "])("refuses the empty target %j, naming it", (target) => {
    expect(() => normalizeTargets([target])).toThrow(TargetError);
    expect(() => normalizeTargets([target])).toThrow(`--target ${JSON.stringify(target)} is empty`);
  });

  it("gives the same target however it is padded with slashes and spaces, and is idempotent", () => {
    const padding = fc.constantFrom("", "/", "//", " ", " /", "/ ");
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        padding,
        padding,
        (parts, before, after) => {
          const written = before.trimEnd() + parts.join("//") + after.trimStart();
          const [once] = normalizeTargets([written]);
          expect(once).toBe(parts.join("/"));
          expect(normalizeTargets([once!])).toEqual([once]);
        },
      ),
    );
  });
});

describe("checkTargetsSelected", () => {
  it("accepts a target that selects a planned path, and refuses one that only shares its first letters", () => {
    expect(() => checkTargetsSelected(["payments"], ["payments/core"], [])).not.toThrow();
    expect(() => checkTargetsSelected(["instance"], [], [])).not.toThrow();
    expect(() => checkTargetsSelected(["pay"], ["payments", "payments/core"], [])).toThrow(
      '--target "pay" matches nothing the manifests declare',
    );
    expect(() => checkTargetsSelected(["payments/core"], ["payments/core-old"], [])).toThrow(TargetError);
  });

  it("suggests the nearest planned path or an ancestor of one, or a path the platform's listings hold", () => {
    expect(() => checkTargetsSelected(["acme/platfrom"], ["acme/platform/api"], [])).toThrow(
      new TargetError(
        '--target "acme/platfrom" matches nothing the manifests declare, nor anything their patterns match on the platform; did you mean "acme/platform"?',
      ),
    );
    expect(() => checkTargetsSelected(["acme/tolls/cli"], ["acme/platform/api"], ["acme/tools/cli"])).toThrow(
      '; did you mean "acme/tools/cli"?',
    );
    // Nothing near: no suggestion, and the message ends there.
    expect(() => checkTargetsSelected(["zzz"], ["acme/platform/api"], [])).toThrow(
      new TargetError(
        '--target "zzz" matches nothing the manifests declare, nor anything their patterns match on the platform',
      ),
    );
  });

  it("lists every target that selects nothing, one a line", () => {
    const error = (() => {
      try {
        checkTargetsSelected(["a", "pay", "b"], ["a/x", "payments"], []);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error?.message.split("\n")).toHaveLength(2);
    expect(error?.message).toContain('--target "pay"');
    expect(error?.message).toContain('--target "b"');
  });
});
