// Worker thread entry (plain JS so that Node loads it without tsx): registers tsx in this thread, then loads the
// TypeScript worker. Workers do not inherit the main thread's tsx registration made through register().
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");
