/** The option a mistyped word was probably meant to be: within a third of its length in edits. */
export function closest(word: string, options: readonly string[]): string | undefined {
  let best: { option: string; distance: number } | undefined;
  for (const option of options) {
    const distance = editDistance(word.toLowerCase(), option.toLowerCase());
    if (distance <= Math.max(1, Math.floor(option.length / 3)) && (!best || distance < best.distance)) best = { option, distance };
  }
  return best?.option;
}

/** Levenshtein distance, transpositions counted as one edit (Damerau, optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
