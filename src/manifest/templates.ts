import type { Diagnostics } from "./diagnostics.js";
import { didYouMean, renderPath } from "./diagnostics.js";
import { getMeta, type Meta, Positions, selfLoc, setMeta, valueLoc } from "./located.js";

type Obj = Record<string, unknown>;

function isPlainObject(v: unknown): v is Obj {
  return (
    v !== null && typeof v === "object" && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype
  );
}

/**
 * Merges `over` onto `base`: maps merge deeply (keys of `over` win), lists and scalars replace. The result keeps
 * the source position of every key from the object that contributed it.
 */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const out: Obj = {};
  const bm = getMeta(base);
  const om = getMeta(over);
  const meta: Meta = {
    self: om?.self ?? bm?.self ?? selfLoc(over),
    keys: new Positions(),
    values: new Positions(),
  };
  for (const [k, v] of Object.entries(base)) {
    out[k] = v;
    const kl = bm?.keys.get(k);
    const vl = bm?.values.get(k);
    if (kl) meta.keys.set(k, kl);
    if (vl) meta.values.set(k, vl);
  }
  for (const [k, v] of Object.entries(over)) {
    out[k] = Object.hasOwn(out, k) ? deepMerge(out[k], v) : v;
    const kl = om?.keys.get(k);
    const vl = om?.values.get(k);
    if (kl) meta.keys.set(k, kl);
    if (vl) meta.values.set(k, vl);
  }
  setMeta(out, meta);
  return out;
}

function withoutKey(obj: Obj, key: string): Obj {
  const out: Obj = {};
  const m = getMeta(obj);
  const meta: Meta = { self: selfLoc(obj), keys: new Positions(), values: new Positions() };
  for (const [k, v] of Object.entries(obj)) {
    if (k === key) continue;
    out[k] = v;
    if (m?.keys.get(k)) meta.keys.set(k, m.keys.get(k)!);
    if (m?.values.get(k)) meta.values.set(k, m.values.get(k)!);
  }
  setMeta(out, meta);
  return out;
}

export class TemplateResolver {
  readonly #templates: Map<string, Obj>;
  readonly #resolved = new Map<string, Obj>();
  readonly used = new Set<string>();

  constructor(
    templates: Map<string, Obj>,
    private readonly diags: Diagnostics,
  ) {
    this.#templates = templates;
  }

  #names(body: Obj, path: (string | number)[], stack: string[]): Obj[] {
    const ext = body.extends;
    if (!Array.isArray(ext)) return [];
    const out: Obj[] = [];
    ext.forEach((name, i) => {
      if (typeof name !== "string") return;
      const at = valueLoc(ext, i);
      const p = renderPath([...path, "extends", i]);
      if (stack.includes(name)) {
        this.diags.error(at, p, `template cycle: ${[...stack, name].join(" -> ")}`);
        return;
      }
      const t = this.#templates.get(name);
      if (!t) {
        const hint = didYouMean(name, this.#templates.keys());
        const known = [...this.#templates.keys()];
        this.diags.error(
          at,
          p,
          `unknown template "${name}"${hint ? `; did you mean "${hint}"?` : known.length ? `; templates: ${known.join(", ")}` : "; no templates are defined"}`,
        );
        return;
      }
      this.used.add(name);
      const r = this.#resolve(name, t, [...stack, name]);
      if (r) out.push(r);
    });
    return out;
  }

  #resolve(name: string, template: Obj, stack: string[]): Obj | undefined {
    const done = this.#resolved.get(name);
    if (done) return done;
    const parts = this.#names(template, ["templates", name], stack);
    let merged: unknown = {};
    setMeta(merged as Obj, { self: selfLoc(template), keys: new Positions(), values: new Positions() });
    for (const p of parts) merged = deepMerge(merged, p);
    merged = deepMerge(merged, withoutKey(template, "extends"));
    this.#resolved.set(name, merged as Obj);
    return merged as Obj;
  }

  /** The body with its `extends` applied (in order, then the body itself), `extends` removed. */
  apply(body: Obj, path: (string | number)[]): Obj {
    if (!Array.isArray(body.extends)) return body;
    const parts = this.#names(body, path, []);
    let merged: unknown = {};
    setMeta(merged as Obj, { self: selfLoc(body), keys: new Positions(), values: new Positions() });
    for (const p of parts) merged = deepMerge(merged, p);
    return deepMerge(merged, withoutKey(body, "extends")) as Obj;
  }
}
