/**
 * The known key a mistyped one most likely meant: the same key in another case, else the closest
 * by edit distance when it is close enough to be a typo (at most a third of the key's length, and
 * at most 3 edits). Undefined when nothing is that close: a suggestion that is a guess misleads.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  const limit = Math.min(3, Math.max(1, Math.floor(key.length / 3)));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { key: candidate, distance };
  }
  return best?.key;
}

/** Levenshtein distance, counting a swap of two neighbouring letters as one edit. */
function editDistance(a: string, b: string): number {
  // rows[i][j]: edits from a's first i letters to b's first j letters.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      row[j] = d;
    }
  }
  return at(a.length, b.length);
}
