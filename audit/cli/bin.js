#!/usr/bin/env node
// `tollgate` (package.json "bin"): runs the TypeScript sources through tsx, so `npx tollgate` works right after
// `npm ci` with no build step. All the logic, and the exit codes, live in main.ts.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
