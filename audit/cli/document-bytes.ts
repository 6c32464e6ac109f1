/** `--max-document-bytes`, the per-document limit's flag, as every command that reads documents takes it. */
import { Option } from "commander";

export function documentBytesOption(): Option {
  return new Option(
    "--max-document-bytes <size>",
    "the per-document limit: the largest YAML document, JSON object or List item read, inputs and policies alike (bytes, or with Ki/Mi/Gi; env TOLLGATE_MAX_DOCUMENT_BYTES; default 8Mi)",
  );
}
