/** "1 note", "3 notes": a number and its noun, singular for one (`plural` where adding "s" is wrong). */
export function count(n: number, word: string, plural = `${word}s`): string {
  return `${n} ${n === 1 ? word : plural}`;
}
