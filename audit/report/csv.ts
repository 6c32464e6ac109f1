/** findings.csv: one row per finding, for spreadsheets; every cell neutralised against formula injection. */
import type { Finding } from "../model.js";
import { csvCell } from "./escape.js";
import type { ReportWriter } from "./types.js";

const COLUMNS: ReadonlyArray<[string, (f: Finding) => string | number | undefined]> = [
  ["id", (f) => f.id],
  ["severity", (f) => f.severity],
  ["ratchet", (f) => f.ratchet],
  ["apiVersion", (f) => f.object?.apiVersion],
  ["kind", (f) => f.object?.kind],
  ["namespace", (f) => f.object?.namespace],
  ["name", (f) => f.object?.name],
  ["file", (f) => f.location?.file],
  ["entry", (f) => f.location?.entry],
  ["document", (f) => f.location?.document],
  ["line", (f) => f.location?.line],
  ["family", (f) => f.rule.family],
  ["policy", (f) => f.rule.policy],
  ["rule", (f) => f.rule.rule],
  ["field", (f) => f.field],
  ["type", (f) => f.type],
  ["message", (f) => f.message],
  ["owner", (f) => f.owner],
  ["firstSeen", (f) => f.firstSeen],
];

export const csvWriter: ReportWriter = {
  name: "csv",
  render(run) {
    const lines = [COLUMNS.map(([name]) => name).join(",")];
    for (const f of run.findings) lines.push(COLUMNS.map(([, get]) => csvCell(get(f))).join(","));
    return [{ name: "findings.csv", content: `${lines.join("\r\n")}\r\n`, contentType: "text/csv; charset=utf-8" }];
  },
};
