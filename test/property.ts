/**
 * fast-check, set up the same way for every property test: a fixed seed, so a run in CI is the run on a developer's
 * machine, and a number of cases that keeps the property tests to a few seconds in all. A failure prints the seed
 * and the shrunk counterexample. Explore further with other seeds or more cases:
 *
 *   FORGEFORM_PROPERTY_SEED=$RANDOM FORGEFORM_PROPERTY_RUNS=5000 npx vitest run test/engine/targets.test.ts
 */
import fc from "fast-check";

const seed = Number(process.env["FORGEFORM_PROPERTY_SEED"] ?? 20_261_124);
const numRuns = Number(process.env["FORGEFORM_PROPERTY_RUNS"] ?? 200);
fc.configureGlobal({ seed, numRuns });

export { fc };

/** A path segment as the platform allows them (letters, digits, `_`, `-`, `.`), short so that segments collide. */
export const segment = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,3}$/);

/** A group or project path of 1-4 segments. */
export const fullPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
