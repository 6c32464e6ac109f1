/** The built CLI under `root` when it is current (see built-entry.js). */
export function builtEntry(root: URL): URL | undefined;
