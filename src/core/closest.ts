/** The option a mistyped word was probably meant to be: within a third of its length in edits. */
export function closest(word: string, options: readonly string[]): string | undefined {
  let best: { option: string; distance: number } | undefined;
  for (const option of options) {
    const distance = editDistance(word.toLowerCase(), option.toLowerCase());
    if (distance <= Math.max(1, Math.floor(option.length / 3)) && (!best || distance < best.distance)) best = { option, distance };
  }
  return best?.option;
}

/**
 * Edit distance between two words, where inserting, deleting or replacing a character, or swapping
 * two neighbours, is one edit, and a swapped pair may be edited again (`pro` → `poar` is two
 * edits): the Damerau–Levenshtein distance (Lowrance and Wagner's algorithm).
 */
export function editDistance(a: string, b: string): number {
  const far = a.length + b.length;
  // rows[i + 1][j + 1] is the distance between a's first i characters and b's first j.
  const rows = Array.from({ length: a.length + 2 }, () => new Array<number>(b.length + 2).fill(0));
  rows[0]![0] = far;
  for (let i = 0; i <= a.length; i++) (rows[i + 1]![0] = far), (rows[i + 1]![1] = i);
  for (let j = 0; j <= b.length; j++) (rows[0]![j + 1] = far), (rows[1]![j + 1] = j);
  /** The last row of `a` each character was seen in. */
  const lastRow = new Map<string, number>();
  for (let i = 1; i <= a.length; i++) {
    let lastColumn = 0;
    for (let j = 1; j <= b.length; j++) {
      const k = lastRow.get(b[j - 1]!) ?? 0;
      const l = lastColumn;
      const same = a[i - 1] === b[j - 1];
      if (same) lastColumn = j;
      rows[i + 1]![j + 1] = Math.min(
        rows[i]![j]! + (same ? 0 : 1),
        rows[i + 1]![j]! + 1,
        rows[i]![j + 1]! + 1,
        rows[k]![l]! + (i - k - 1) + 1 + (j - l - 1),
      );
    }
    lastRow.set(a[i - 1]!, i);
  }
  return rows[a.length + 1]![b.length + 1]!;
}
