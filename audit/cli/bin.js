#!/usr/bin/env node
// `tollgate` (package.json "bin"). Runs the built CLI (dist/cli, made by `npm run build`, which `npm ci` runs as
// `prepare`) when it is current, else the TypeScript sources through tsx, so an edited checkout never runs stale
// code (built-entry.js). All the logic, and the exit codes, live in main.ts.
import { builtEntry } from "./built-entry.js";

const entry = builtEntry(new URL("../../", import.meta.url));
if (entry !== undefined) {
  await import(entry.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("./main.ts");
}
