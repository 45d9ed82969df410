// Count phrases, in the same words as the server's (app/kit/words.py; tests/app/kit/test_words.py
// runs both on one table): "1 case", "3 cases", "0 cases".

/** `n` and the noun, singular for exactly one: count(1, "case") is "1 case", count(2, "case") "2 cases". */
export function count(n, noun, plural) {
  return n + " " + (n === 1 ? noun : plural || noun + "s");
}

/** The folded passing cases' summary: "The 1 case passed", "All 3 cases passed", "2 of 3 cases passed". */
export function passedPhrase(passed, total) {
  if (passed === total) return total === 1 ? "The 1 case passed" : "All " + count(total, "case") + " passed";
  return passed + " of " + count(total, "case") + " passed";
}
