#!/usr/bin/env bash
# Writes the corpus `scripts/fit_static.py` fits the static model on: the English Markdown (and
# `.mdx`, and PEPs' `.rst`) of public documentation repositories, none of them the sample vault.
#
#   scripts/fit_corpus.sh MIRRORS OUT
#
# MIRRORS holds each repository as `owner+name/repo` (a bare clone, as the workplace's fetch
# tool writes them); each is read at the commit pinned below, so the corpus is the same on any
# machine. OUT gets one folder per repository; then
# `vault-agent model passages --corpus OUT/* --sentences --out passages.jsonl`.
set -euo pipefail
mirrors=${1:?usage: fit_corpus.sh MIRRORS OUT}
out=${2:?usage: fit_corpus.sh MIRRORS OUT}

# owner/name, commit, and the paths left out (an extended regex; translations, mostly).
repos=(
  "Homebrew/brew aad366ffaf -"
  "TheOdinProject/curriculum 693bd4130e -"
  "ankitects/anki-manual 91630dd -"
  "blacksmithgu/obsidian-dataview 5ad0994 -"
  "dair-ai/Prompt-Engineering-Guide 3d96678 \.(ar|ca|de|es|fi|fr|it|jp|kr|pt|ru|tr|zh)\.mdx?$"
  "dendronhq/dendron-site fbc07769 -"
  "ethereum/EIPs f767a1e80 -"
  "foambubble/foam 9f56a235 -"
  "getify/You-Dont-Know-JS 63922c1 -"
  "gohugoio/hugoDocs 1c613349f -"
  "jekyll/jekyll 202df5713 -"
  "kubernetes/enhancements 64765b4b0 -"
  "laurent22/joplin db966f919 -"
  "logseq/docs 08f855f -"
  "marijnh/Eloquent-JavaScript e72c7a1 -"
  "mastodon/documentation 2903485d -"
  "microsoft/TypeScript-Website 1f8e6425 /copy/[a-z-]+/ /copy/en/"
  "nodejs/nodejs.org 6f94c8a6ab /pages/[a-z-]+/ /pages/en/"
  "obsidian-community/obsidian-hub dae4bcf14 -"
  "obsidian-tasks-group/obsidian-tasks cc0fce3c1 -"
  "obsidianmd/obsidian-developer-docs 29188ec -"
  "python/peps ba4deeb79 -"
  "reactjs/react.dev 12d692da4 -"
  "rust-lang/blog.rust-lang.org 0243724c -"
  "rust-lang/book 917544888 -"
  "rust-lang/rfcs 354518a8 -"
  "rust-lang/rustc-dev-guide 2cbf0434 -"
  "squidfunk/mkdocs-material 5b36f2ac4 -"
  "swiftlang/swift-evolution 0105e139 -"
  "tldr-pages/tldr 08e345f426 ^pages\.[a-zA-Z_]+/"
  "vuejs/docs 01e098a9 -"
  "withastro/docs 741c1b89ba /docs/[a-z-]+/ /docs/en/"
)

mkdir -p "$out"
total=0
for entry in "${repos[@]}"; do
  read -r repo commit drop keep <<<"$entry"
  git_dir="$mirrors/${repo/\//+}/repo"
  dest="$out/${repo/\//+}"
  rm -rf "$dest" && mkdir -p "$dest"
  # A path is kept when it is Markdown (or reStructuredText), not dropped, or dropped but kept
  # again (the English folder among translations).
  git --git-dir="$git_dir" ls-tree -r --name-only "$commit" |
    grep -E '\.(md|mdx|rst)$' |
    awk -v drop="$drop" -v keep="${keep:-}" \
      'drop == "-" || $0 !~ drop || (keep != "" && $0 ~ keep)' >"$dest.list"
  # Only the listed blobs are read: a snapshot may lack large binary files.
  xargs -d '\n' -r bash -c 'd=$2; git --literal-pathspecs --git-dir="$0" archive "$1" -- "${@:3}" | tar -x -C "$d"' \
    "$git_dir" "$commit" "$dest" <"$dest.list"
  n=$(wc -l <"$dest.list")
  total=$((total + n))
  rm "$dest.list"
  echo "$repo $commit: $n files"
done
echo "$total files in $out"
