/**
 * The vocabulary of the manifest schemas beyond JSON Schema's own: the annotation keywords (`x-identity`, ...) and
 * the string formats, as ajv takes them. The validators generated from the schemas (`validators.gen.ts`, written by
 * scripts/gen-validators.mjs) call these formats; the generator registers both.
 */
import type { Format } from "ajv";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { FORMAT_CHECKS, hasReference } from "./formats.js";

/** Annotation keywords the schemas use; registered with ajv so strict mode accepts them. */
export const ANNOTATIONS = [
  "x-identity",
  "x-singleton",
  "x-sensitive",
  "x-sensitive-live",
  "x-replace",
  "x-licensed",
  "x-deprecated",
  "x-restart",
  "x-local",
  "x-requires",
  "x-key-sizes",
  "x-normalize",
  "x-shared-fields",
  "x-default-template",
  "x-pattern-message",
  "x-update-only",
  "x-detail-only",
] as const;

/**
 * Every string format by name: the standard ones of ajv-formats (`date`, `date-time`, `email`, ...) and forgeform's
 * (src/manifest/formats.ts), which a value holding a `${env:}` or `${file:}` reference passes: it is checked once
 * the reference is resolved.
 */
export const FORMATS: Record<string, Format> = {
  ...fullFormats,
  ...Object.fromEntries(
    Object.entries(FORMAT_CHECKS).map(([name, check]) => [
      name,
      { type: "string", validate: (v: string) => hasReference(v) || check(v) === undefined } satisfies Format,
    ]),
  ),
};
