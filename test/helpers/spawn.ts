/**
 * Spawning a command as a black box for e2e tests: its exit code and its whole standard output and error.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root, the working directory of every spawned command unless told otherwise. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The whole environment of the child (callers merge `process.env` themselves). */
  env: NodeJS.ProcessEnv;
  /** Text written to standard input, which is then closed (empty when not given). */
  stdin?: string;
  cwd?: string;
}

/** Runs `command args` to its end and collects its exit code, standard output and standard error as UTF-8. */
export function runCommand(command: string, args: readonly string[], options: RunOptions): Promise<Run> {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}
