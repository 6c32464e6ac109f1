/** findings.csv: one row per finding, for spreadsheets; every cell neutralised against formula injection. */
import type { Finding } from "../model.js";
import { csvCell } from "./escape.js";
import { sharedStream } from "./shared-pass.js";
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
  ["binding", (f) => f.rule.binding],
  ["param", (f) => f.rule.param],
  ["index", (f) => f.rule.index],
  ["field", (f) => f.field],
  ["type", (f) => f.type],
  ["message", (f) => f.message],
  ["team", (f) => f.team],
  ["controller", (f) => f.controller],
  ["firstSeen", (f) => f.firstSeen],
  ["waiver", (f) => f.waiver?.name],
  ["waiverOwner", (f) => f.waiver?.owner],
  ["waiverExpires", (f) => f.waiver?.expires],
  ["waiverExpired", (f) => (f.waiver?.expired === true ? "true" : undefined)],
  ["waiverTicket", (f) => f.waiver?.ticket],
  ["waivedSeverity", (f) => f.waiver?.severity],
];

/** The rows, rendered in the shared pass as the file is written. */
const csvRows = sharedStream((pass) => {
  const rows = pass.liveText();
  return {
    finding(f: Finding) {
      rows.append(`${COLUMNS.map(([, get]) => csvCell(get(f))).join(",")}\r\n`);
    },
    early: { rows },
    result: () => ({ rows }),
  };
});

export const csvWriter: ReportWriter = {
  name: "csv",
  render(run) {
    csvRows.want(run);
    async function* chunks(): AsyncGenerator<string | Uint8Array> {
      yield `${COLUMNS.map(([name]) => name).join(",")}\r\n`;
      yield* (await csvRows(run)).rows.chunks();
    }
    return [{ name: "findings.csv", chunks, contentType: "text/csv; charset=utf-8" }];
  },
};
