export * from "./error.js";
export * from "./message.js";
export * from "./path.js";
export * from "./redact.js";
