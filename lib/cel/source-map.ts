/**
 * Source texts that tollgate changes before the engine parses them, and the way back: each character of the
 * changed text knows the offset of the original character it stands for, so that compile issues found on the
 * changed text point where cel-go points in the text the user wrote.
 */

/** One change: `remove` characters at `at` (an offset of the current text) replaced by `insert`. */
export interface TextEdit {
  readonly at: number;
  readonly remove: number;
  readonly insert: string;
}

/** A text and, for each of its offsets (and its end), the offset in the original text it comes from. */
export interface MappedText {
  readonly text: string;
  readonly origin: readonly number[];
}

/**
 * A text that is its own original. Its offsets are made when first read: most expressions are compiled as written,
 * and never need them.
 */
export function unmapped(text: string): MappedText {
  let origin: number[] | undefined;
  return {
    text,
    get origin(): readonly number[] {
      if (origin === undefined) {
        origin = new Array<number>(text.length + 1);
        for (let i = 0; i <= text.length; i++) origin[i] = i;
      }
      return origin;
    },
  };
}

/**
 * Applies edits, given in the order of their places (`at`; several insertions at one place in the order given),
 * none removing what another edits. Inserted characters map to the original offset of the place they were
 * inserted at; copied ones keep theirs.
 */
export function applyEdits(source: MappedText, sorted: readonly TextEdit[]): MappedText {
  let text = "";
  const origin: number[] = [];
  let pos = 0;
  const copy = (to: number) => {
    text += source.text.slice(pos, to);
    for (let i = pos; i < to; i++) origin.push(source.origin[i]!);
    pos = to;
  };
  for (const e of sorted) {
    copy(e.at);
    const anchor = source.origin[e.at]!;
    text += e.insert;
    for (let i = 0; i < e.insert.length; i++) origin.push(anchor);
    pos = e.at + e.remove;
  }
  copy(source.text.length);
  origin.push(source.origin[source.text.length]!);
  return { text, origin };
}

/** The original offset of an offset of a mapped text (clamped to the text). */
export function originalOffset(source: MappedText, offset: number): number {
  const i = Math.max(0, Math.min(offset, source.origin.length - 1));
  return source.origin[i]!;
}
