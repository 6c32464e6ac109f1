/**
 * A cheap field path: a parent pointer plus one segment, turned into text only when an error is made
 * (k8s.io/apimachinery/pkg/util/validation/field.Path).
 *
 * Text forms: `.name` for a child (no leading dot at the root), `[3]` for an index, `[key]` (unquoted) for a
 * map key. The nil path (no segment at all) prints `<nil>`.
 */
export class Path {
  constructor(
    readonly parent: Path | null,
    readonly kind: "child" | "index" | "key",
    readonly segment: string | number,
  ) {}

  /** field.NewPath(name, ...more) */
  static of(name: string, ...more: string[]): Path {
    let p = new Path(null, "child", name);
    for (const m of more) p = p.child(m);
    return p;
  }

  child(name: string): Path {
    return new Path(this, "child", name);
  }

  index(i: number): Path {
    return new Path(this, "index", i);
  }

  key(k: string): Path {
    return new Path(this, "key", k);
  }

  /** The root segment of this path. */
  root(): Path {
    let p: Path = this;
    while (p.parent !== null) p = p.parent;
    return p;
  }

  toString(): string {
    const parts: string[] = [];
    let p: Path | null = this;
    while (p !== null) {
      parts.push(segmentText(p, p.parent === null));
      p = p.parent;
    }
    let s = "";
    for (let i = parts.length - 1; i >= 0; i--) s += parts[i];
    return s;
  }
}

function segmentText(p: Path, isFirst: boolean): string {
  switch (p.kind) {
    case "child":
      return isFirst ? String(p.segment) : `.${p.segment}`;
    case "index":
      return `[${p.segment}]`;
    case "key":
      return `[${p.segment}]`;
  }
}

/** Path text with `<nil>` for the nil path, as field.Error prints it. */
export function pathText(path: Path | null | undefined): string {
  return path == null ? "<nil>" : path.toString();
}

/** Appends a child to a possibly nil path (a nil path's child is a first segment). */
export function childOf(path: Path | null, name: string): Path {
  return new Path(path, "child", name);
}

/** Appends an index to a possibly nil path. */
export function indexOf(path: Path | null, i: number): Path {
  return new Path(path, "index", i);
}

/** Appends a map key to a possibly nil path. */
export function keyOf(path: Path | null, k: string): Path {
  return new Path(path, "key", k);
}
