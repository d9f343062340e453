#!/usr/bin/env python3
"""Extends MiniLM's vocabulary with a corpus's commonest whole words, for `fit_static.py fit
--words` (needs only `tokenizers`, so it runs where the corpus is, not on the GPU):

    python3 scripts/fit_words.py --minilm DIR --passages passages.jsonl --out tokenizer-words.json
"""

import argparse
import json
import lzma
import sys

from tokenizers import Tokenizer


def words(args):
    """Extends MiniLM's vocabulary with the corpus's commonest whole words that it splits into
    pieces (model2vec's and tokenlearn's own vocabularies do the same): each gets a row of its own,
    distilled from MiniLM's vector of its pieces and then fitted, instead of the sum of its
    pieces' rows. Appended after MiniLM's 30,522 pieces, so their ids stay; WordPiece's longest
    match takes a whole word first, so `wordpiece.rs` needs no change."""
    spec = json.load(open(f"{args.minilm}/tokenizer.json", encoding="utf-8"))
    tokenizer = Tokenizer.from_str(json.dumps(spec))
    vocab = spec["model"]["vocab"]
    norm, pre = tokenizer.normalizer, tokenizer.pre_tokenizer
    counts = {}
    for path in args.passages:
        opener = lzma.open if path.endswith(".xz") else open
        with opener(path, "rt", encoding="utf-8") as lines:
            for text in (json.loads(line) for line in lines if line.strip()):
                for word, _ in pre.pre_tokenize_str(norm.normalize_str(text)):
                    counts[word] = counts.get(word, 0) + 1
    chosen = sorted(
        (w for w, n in counts.items() if n >= args.min_count and len(w) >= 3 and w.isalpha() and w not in vocab),
        key=lambda w: (-counts[w], w),
    )[: args.max_words]
    for w in chosen:
        vocab[w] = len(vocab)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(spec, f, ensure_ascii=False)
    print(f"wrote {args.out}: {len(chosen)} words added ({args.min_count}+ uses), {len(vocab)} tokens")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minilm", required=True, help="tokenizer.json")
    parser.add_argument("--passages", nargs="+", required=True)
    parser.add_argument("--min-count", type=int, default=20)
    parser.add_argument("--max-words", type=int, default=20000)
    parser.add_argument("--out", required=True, help="the extended tokenizer.json")
    words(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
