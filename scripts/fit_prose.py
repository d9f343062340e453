#!/usr/bin/env python3
"""Writes passages of everyday English prose for `scripts/fit_static.py`, from NLTK's corpora.

The documentation corpus (`scripts/fit_corpus.sh`) is all technical writing, while a user's
searches are everyday words ("make a note show up inside another one"). NLTK's data repository
holds corpora of general English: the Brown corpus (500 texts of 15 genres), movie reviews,
product reviews and their pros and cons, news (ABC), speeches, web text (a forum, overheard
talk, personal ads, wine notes), sentences rated subjective or objective, and TREC's questions.

    python3 scripts/fit_prose.py NLTK_DATA_GIT_DIR OUT.jsonl

NLTK_DATA_GIT_DIR is a bare clone of github.com/nltk/nltk_data (as the workplace's fetch tool
writes it); each corpus's zip is read at the commit pinned below, so the passages are the same
on any machine. Like `vault-agent model passages --sentences`, it writes each paragraph (a few
sentences, 80–1,500 characters) and each sentence of three words or more on its own, one JSON
string per line. Tokenised corpora keep their spaces around punctuation: MiniLM's tokenizer
splits punctuation off anyway, and it lowercases.
"""

import io
import json
import re
import subprocess
import sys
import zipfile

COMMIT = "5db857e"
PARAGRAPH = (80, 1500)
# Sentences a paragraph gathers at most, where a corpus has no paragraphs of its own.
GATHER = 5


def zip_of(git_dir, name):
    data = subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{COMMIT}:packages/corpora/{name}.zip"],
        check=True,
        capture_output=True,
    ).stdout
    return zipfile.ZipFile(io.BytesIO(data))


def files(archive, pattern):
    for info in sorted(archive.infolist(), key=lambda i: i.filename):
        if not info.is_dir() and re.search(pattern, info.filename):
            yield info.filename, archive.read(info).decode("utf-8", errors="replace")


def untag(line, sep):
    """`The/at jury/nn` (Brown) or `The_DT jury_NN` (MASC) to `The jury`."""
    return " ".join(w.rsplit(sep, 1)[0] for w in line.split())


def clean(text):
    return re.sub(r"\s+", " ", text.replace("``", '"').replace("''", '"')).strip()


def grouped(sentences, size=GATHER):
    """Consecutive sentences as paragraphs of at most `size`."""
    return [sentences[i : i + size] for i in range(0, len(sentences), size)]


def documents(git_dir):
    """Each document as a list of paragraphs, each a list of sentences."""
    # Tagged corpora: a sentence a line, paragraphs between blank lines.
    for corpus, pattern, sep in [("brown", r"brown/c[a-r]\d\d$", "/"), ("masc_tagged", r"\.txt$", "_")]:
        for name, text in files(zip_of(git_dir, corpus), pattern):
            paragraphs = []
            for block in re.split(r"\n\s*\n", text):
                sentences = [clean(untag(line, sep)) for line in block.splitlines() if line.strip()]
                if sentences:
                    paragraphs.append(sentences)
            yield paragraphs

    # One sentence per line, a document per file.
    for corpus, pattern in [
        ("movie_reviews", r"/(pos|neg)/.*\.txt$"),
        ("webtext", r"/(firefox|overheard|singles|wine)\.txt$"),
        ("subjectivity", r"tok\.gt9"),
        ("sentence_polarity", r"rt-polarity\."),
    ]:
        for name, text in files(zip_of(git_dir, corpus), pattern):
            sentences = [clean(line) for line in text.splitlines() if line.strip()]
            yield grouped(sentences)

    # Paragraphs of raw prose: news and speeches.
    for corpus, pattern in [
        ("abc", r"/(rural|science)\.txt$"),
        ("state_union", r"\.txt$"),
        ("inaugural", r"\.txt$"),
    ]:
        for name, text in files(zip_of(git_dir, corpus), pattern):
            paragraphs = []
            for block in re.split(r"\n\s*\n", text):
                block = clean(block)
                if block:
                    paragraphs.append(re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", block))
            yield paragraphs

    pros_cons = zip_of(git_dir, "pros_cons")
    for name, text in files(pros_cons, r"Integrated(Pros|Cons)\.txt$"):
        lines = [clean(m) for m in re.findall(r"<(?:Pros|Cons)>(.*?)</(?:Pros|Cons)>", text)]
        yield [[line] for line in lines]

    for corpus in ["product_reviews_1", "product_reviews_2"]:
        for name, text in files(zip_of(git_dir, corpus), r"\.txt$"):
            if name.endswith("README.txt"):
                continue
            sentences = []
            for line in text.splitlines():
                if "##" in line:
                    sentences.append(clean(line.split("##", 1)[1]))
            yield grouped(sentences)

    qc = zip_of(git_dir, "qc")
    for name, text in files(qc, r"(train|test)\.txt$"):
        questions = [clean(line.split(" ", 1)[1]) for line in text.splitlines() if " " in line]
        yield [[q] for q in questions]


def passages(git_dir):
    seen = set()
    for paragraphs in documents(git_dir):
        for sentences in paragraphs:
            sentences = [s for s in sentences if s]
            paragraph = " ".join(sentences)
            out = []
            if len(sentences) > 1 and PARAGRAPH[0] <= len(paragraph) <= PARAGRAPH[1]:
                out.append(paragraph)
            out.extend(s for s in sentences if len(s.split()) >= 3 and len(s) <= PARAGRAPH[1])
            for p in out:
                if p not in seen:
                    seen.add(p)
                    yield p


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fit_prose.py NLTK_DATA_GIT_DIR OUT.jsonl")
    count = 0
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for p in passages(sys.argv[1]):
            out.write(json.dumps(p, ensure_ascii=False) + "\n")
            count += 1
    print(f"{count} passages in {sys.argv[2]}")


if __name__ == "__main__":
    main()
