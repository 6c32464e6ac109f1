// Loaded with `node --import` by the memory benchmark: prints the process's peak RSS (bytes) on standard error at
// exit, so the benchmark can read the audited process's own figure.
process.on("exit", () => {
  process.stderr.write(`\ntollgate-bench-maxrss ${process.resourceUsage().maxRSS * 1024}\n`);
});
