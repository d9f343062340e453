#!/usr/bin/env python3
"""Fits the static model to all-MiniLM-L6-v2 over a large corpus, on a GPU (tokenlearn-style).

`vault-agent model distill --corpus` does the same on the CPU, for a corpus of thousands of
passages; this script does it for hundreds of thousands, where MiniLM's pass over the corpus
needs a GPU. It writes model files in the plugin's own format (`.vam`, see
`src/embed/static_model.rs`), so each one can be benchmarked as it is:

    scripts/fit_corpus.sh MIRRORS corpus      # the 32 repositories BENCHMARKS.md names
    vault-agent model passages --corpus corpus/*/ --sentences --out passages.jsonl
    python3 scripts/fit_static.py pack --minilm DIR --out minilm-packed.safetensors
    python3 scripts/fit_static.py fit --minilm DIR --packed minilm-packed.safetensors \
        --passages passages.jsonl.xz --out-dir OUT --run name=mix,loss=mixed,epochs=3
    python3 scripts/fit_static.py reweight --model OUT/mix.vam --minilm DIR \
        --passages passages.jsonl.xz --id static-minilm-l6-v2-256@2 --out model.vam

What it does, as `src/embed/distill.rs` and `src/embed/fit.rs` do:
1. MiniLM embeds every passage (≤ 128 tokens, mean pooled, unit length): its *targets*.
2. MiniLM embeds every vocabulary token alone (`[CLS] t [SEP]`, mean pooled): the distilled rows,
   weighted by SIF with a Zipf estimate of each token's frequency.
3. Rows and targets move into the top 256 principal components of the targets.
4. The rows are fitted so each passage's summed rows point at its target: with the cosine loss
   (as `fit.rs`), or contrastively (InfoNCE over the batch, as tokenlearn does), which teaches
   the rows to tell passages apart, not only to point near them; or both at once (mixed).
5. `reweight` (or `fit --sif`): SIF weights from the corpus's token counts on top (tokenlearn's
   last step).

With `--words` (an extended tokenizer from `scripts/fit_words.py`), runs with `vocab=words` fit
a vocabulary with the corpus's commonest whole words added, each word's first row MiniLM's
vector of its pieces.

`pack` keeps MiniLM small enough to carry to a machine that cannot download it: the token
embeddings as int8 with a scale per row, the rest as float16 (targets stay within 1e-4 of the
float32 model's; `fit` reports the check on the first passages when given the original too).
With `--linear-int8` the layers' matrices are int8 too (23 MB, within cosine 0.9987): room
beside a second corpus (`scripts/fit_prose.py`) in the device tool's 64 MiB.
"""

import argparse
import json
import lzma
import os
import struct
import sys
import time

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer

MAX_TOKENS = 128
SIF = 1e-4
HOLDOUT = 20


def log(*args):
    print(f"[{time.strftime('%H:%M:%S')}]", *args, flush=True)


def pack(args):
    weights = load_file(os.path.join(args.minilm, "model.safetensors"))
    out = {}
    for name, w in weights.items():
        if name == "embeddings.word_embeddings.weight" or (args.linear_int8 and name.startswith("encoder.") and w.dim() == 2):
            scale = w.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127.0
            out[name + ".int8"] = torch.round(w / scale).clamp(-127, 127).to(torch.int8)
            out[name + ".scale"] = scale.squeeze(1).to(torch.float32)
        elif w.is_floating_point():
            out[name] = w.to(torch.float16)
    save_file(out, args.out)
    log(f"wrote {args.out}: {os.path.getsize(args.out) / 1e6:.1f} MB")


def load_weights(path):
    raw = load_file(path)
    out = {}
    for name, w in raw.items():
        if name.endswith(".int8"):
            base = name[: -len(".int8")]
            out[base] = w.to(torch.float32) * raw[base + ".scale"].unsqueeze(1)
        elif not name.endswith(".scale"):
            out[name] = w.to(torch.float32)
    return out


class MiniLm:
    """BERT's forward pass (all-MiniLM-L6-v2's shape), mean pooled over the real tokens."""

    def __init__(self, weights, config, device):
        self.w = {k: v.to(device) for k, v in weights.items()}
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.eps = config["layer_norm_eps"]
        self.device = device

    def _ln(self, x, name):
        return F.layer_norm(x, x.shape[-1:], self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def _lin(self, x, name):
        return F.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    @torch.no_grad()
    def pooled(self, ids, mask):
        w, (b, n) = self.w, ids.shape
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:n].unsqueeze(0)
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = self._ln(x, "embeddings.LayerNorm")
        keys = mask.bool()[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            split = lambda t: t.view(b, n, self.heads, -1).transpose(1, 2)
            q, k, v = (split(self._lin(x, p + f"attention.self.{s}")) for s in ("query", "key", "value"))
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=keys)
            a = a.transpose(1, 2).reshape(b, n, -1)
            x = self._ln(x + self._lin(a, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = F.gelu(self._lin(x, p + "intermediate.dense"))
            x = self._ln(x + self._lin(h, p + "output.dense"), p + "output.LayerNorm")
        m = mask.to(x.dtype).unsqueeze(-1)
        return (x * m).sum(1) / m.sum(1).clamp_min(1.0)

    def embed(self, seqs, batch_tokens=65536, normalize=True):
        """Pooled vectors of id sequences, in their order; batches of similar length."""
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        out = torch.empty(len(seqs), self.w["embeddings.LayerNorm.weight"].shape[0], device=self.device)
        at = 0
        while at < len(order):
            n = len(seqs[order[min(at + 1, len(order) - 1)]])
            take = max(1, batch_tokens // max(n, 1))
            group = order[at : at + take]
            n = max(len(seqs[i]) for i in group)
            ids = torch.zeros(len(group), n, dtype=torch.long)
            mask = torch.zeros(len(group), n, dtype=torch.long)
            for row, i in enumerate(group):
                ids[row, : len(seqs[i])] = torch.tensor(seqs[i])
                mask[row, : len(seqs[i])] = 1
            v = self.pooled(ids.to(self.device), mask.to(self.device))
            out[torch.tensor(group, device=self.device)] = F.normalize(v, dim=1) if normalize else v
            at += len(group)
        return out


def read_passages(paths):
    texts = []
    for path in paths:
        opener = lzma.open if path.endswith(".xz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            texts.extend(json.loads(line) for line in f if line.strip())
    return texts


def pca(x, k):
    """Top-k principal components of the rows of x (columns of the result), sign-fixed as
    `distill.rs` fixes them (largest entry positive), and the rows' mean."""
    mean = x.mean(0, dtype=torch.float64)
    c = (x.double() - mean).T @ (x.double() - mean)
    values, vectors = torch.linalg.eigh(c)
    top = vectors[:, torch.argsort(values, descending=True)[:k]]
    big = top.gather(0, top.abs().argmax(0, keepdim=True))
    return (top * torch.sign(big)).float(), mean.float()


def write_vam(path, rows, vocab, model_id, source):
    header = json.dumps(
        {"id": model_id, "dimensions": rows.shape[1], "tokens": rows.shape[0], "source": source},
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode()
    vocab_bytes = "\n".join(vocab).encode()
    rows = rows.double().cpu()
    peak = rows.abs().amax(1)
    scale = (peak / 127.0).float()
    inv = torch.where(scale > 0, 1.0 / scale, torch.zeros_like(scale))
    x = rows.float() * inv.unsqueeze(1)
    codes = (torch.sign(x) * torch.floor(x.abs() + 0.5)).clamp(-127, 127).to(torch.int8)
    with open(path, "wb") as f:
        f.write(b"VASTM\x01")
        f.write(struct.pack("<I", len(header)))
        f.write(header)
        f.write(struct.pack("<I", len(vocab_bytes)))
        f.write(vocab_bytes)
        f.write(scale.numpy().astype("<f4").tobytes())
        f.write(codes.numpy().tobytes())


def summed(table, weight, ids, offsets):
    """Each passage's rows, each times its token's weight (an `n × 1` parameter), summed; the
    gradients are sparse, for SparseAdam."""
    w = F.embedding(ids, weight, sparse=True).squeeze(1)
    return F.embedding_bag(ids, table, offsets, mode="sum", per_sample_weights=w, sparse=True)


def evaluate(rows, data, idx, targets):
    """Held-out mean cosine, and how often a passage's static vector (its rows summed) finds its
    own target first among all held-out targets (a retrieval proxy)."""
    hits = 0
    with torch.no_grad():
        vecs = []
        for start in range(0, len(idx), 8192):
            part = idx[start : start + 8192]
            ids, offsets = data.batch(part)
            vecs.append(F.normalize(F.embedding_bag(ids, rows, offsets, mode="sum"), dim=1))
        v = torch.cat(vecs)
        t = targets[idx]
        cos = (v * t).sum(1).mean().item()
        for start in range(0, len(idx), 4096):
            sims = v[start : start + 4096] @ t.T
            hits += (sims.argmax(1) == torch.arange(start, start + sims.shape[0], device=v.device)).sum().item()
    return cos, hits / max(len(idx), 1)


class Pieces:
    """The passages' WordPiece ids on the GPU, flat, for embedding_bag."""

    def __init__(self, seqs, device):
        lengths = torch.tensor([len(s) for s in seqs])
        self.starts = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]]).to(device)
        self.lengths = lengths.to(device)
        self.flat = torch.tensor([i for s in seqs for i in s], dtype=torch.long, device=device)
        self.device = device

    def batch(self, idx):
        lengths = self.lengths[idx]
        offsets = torch.cat([torch.zeros(1, dtype=torch.long, device=self.device), lengths.cumsum(0)[:-1]])
        pos = torch.arange(int(lengths.sum().item()), device=self.device)
        owner = torch.repeat_interleave(torch.arange(len(idx), device=self.device), lengths)
        ids = self.flat[self.starts[idx][owner] + pos - offsets[owner]]
        return ids, offsets


def fit(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    log(f"device {device}: {torch.cuda.get_device_name() if device == 'cuda' else 'cpu'}, torch {torch.__version__}")
    config = json.load(open(os.path.join(args.minilm, "config.json")))
    vocab = open(os.path.join(args.minilm, "vocab.txt"), encoding="utf-8").read().split("\n")
    while vocab and vocab[-1] == "":
        vocab.pop()
    tokenizer = Tokenizer.from_file(os.path.join(args.minilm, "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()
    model = MiniLm(load_weights(args.packed), config, device)
    os.makedirs(args.out_dir, exist_ok=True)

    texts = read_passages(args.passages)
    if args.limit:
        texts = texts[: args.limit]
    log(f"{len(texts)} passages")
    encodings = tokenizer.encode_batch(texts)
    seqs = [e.ids for e in encodings]
    if args.check_original:
        exact = MiniLm(load_weights(os.path.join(args.minilm, "model.safetensors")), config, device)
        a, b = exact.embed(seqs[:512]), model.embed(seqs[:512])
        log(f"packed vs original MiniLM, first 512 passages: min cosine {(a * b).sum(1).min().item():.6f}")
    if args.reference:
        ref = json.load(open(args.reference))
        got = model.embed([e.ids for e in tokenizer.encode_batch(ref["sentences"])])
        want = F.normalize(torch.tensor(ref["vectors"], device=device), dim=1)
        log(f"reference sentences: min cosine to sentence-transformers {(got * want).sum(1).min().item():.6f}")

    t0 = time.time()
    targets = model.embed(seqs, batch_tokens=args.batch_tokens)
    log(f"targets: {targets.shape} in {time.time() - t0:.1f} s")
    # What the static model reads of each passage: MiniLM's pieces (without [CLS] and [SEP]), and
    # with --words the same text (up to where MiniLM's 128 tokens end) in the extended vocabulary.
    pieces = {"pieces": [s[1:-1] for s in seqs]}
    vocabs = {"pieces": vocab}
    if args.words:
        spec = json.load(open(args.words, encoding="utf-8"))
        words_vocab = sorted(spec["model"]["vocab"], key=spec["model"]["vocab"].get)
        if words_vocab[: len(vocab)] != vocab:
            raise SystemExit(f"{args.words} does not extend MiniLM's vocabulary")
        words_tokenizer = Tokenizer.from_str(json.dumps(spec))
        words_tokenizer.no_truncation()
        words_tokenizer.no_padding()
        cut = [t[: e.offsets[-2][1]] if len(e.ids) > 2 else "" for t, e in zip(texts, encodings)]
        pieces["words"] = [e.ids for e in words_tokenizer.encode_batch(cut, add_special_tokens=False)]
        vocabs["words"] = words_vocab
        log(f"words: {len(words_vocab) - len(vocab)} added")
    keep = [i for i in range(len(seqs)) if all(p[i] for p in pieces.values())]
    pieces = {k: [p[i] for i in keep] for k, p in pieces.items()}
    seqs = pieces["pieces"]
    targets = targets[torch.tensor(keep, device=device)]

    t0 = time.time()
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    # A token's distilled row is MiniLM's vector of it alone; an added word's, of its pieces.
    longest = vocabs.get("words", vocab)
    alone = [[cls, t, sep] for t in range(len(vocab))]
    alone += [tokenizer.encode(w).ids for w in longest[len(vocab) :]]
    raw_all = model.embed(alone, normalize=False)
    raw = raw_all[: len(vocab)]
    log(f"vocabulary: {raw_all.shape} in {time.time() - t0:.1f} s")

    dims = args.dimensions
    components, target_mean = pca(targets, dims)
    raw_mean = raw.double().mean(0).float()

    def zipf_sif(n):
        harmonic = sum(1.0 / r for r in range(1, n + 1))
        p = 1.0 / (torch.arange(1, n + 1, dtype=torch.float64) * harmonic)
        return (SIF / (SIF + p)).float().to(device)

    inits = {k: ((raw_all[: len(v)] - raw_mean) @ components) * zipf_sif(len(v)).unsqueeze(1) for k, v in vocabs.items()}
    init = inits["pieces"]
    projected = F.normalize((targets - target_mean) @ components, dim=1)

    # Held out in blocks of 100 passages, so a paragraph's own sentences are mostly on its side.
    blocks = torch.arange(len(seqs)) // (100 if len(seqs) >= 100 * HOLDOUT * 10 else 1)
    held = torch.nonzero(blocks % HOLDOUT == HOLDOUT - 1).squeeze(1).to(device)
    train = torch.nonzero(blocks % HOLDOUT != HOLDOUT - 1).squeeze(1).to(device)
    datas = {k: Pieces(p, device) for k, p in pieces.items()}
    data = datas["pieces"]
    for k, d in datas.items():
        counts = torch.bincount(d.flat, minlength=len(vocabs[k]))
        log(f"{k}: train {len(train)}, held out {len(held)}; tokens seen {(counts > 0).sum().item()} of {len(vocabs[k])}")
    before = evaluate(init, data, held, projected)
    log(f"distilled rows: held-out cosine {before[0]:.4f}, top-1 {before[1]:.4f}")
    summary = [{"name": "distilled", "held_cos": before[0], "held_top1": before[1], "passages": len(seqs)}]
    if args.write_distilled:
        write_vam(
            os.path.join(args.out_dir, "distilled-targetpca.vam"),
            init,
            vocab,
            "static-minilm-l6-v2-256@gpu-distilled",
            "distilled from all-MiniLM-L6-v2 into the principal components of its vectors of the corpus, int8",
        )

    sifs = {}
    if args.sif:
        t0 = time.time()
        sifs["pieces"] = corpus_sif(Tokenizer.from_file(os.path.join(args.minilm, "tokenizer.json")), texts, args.sif)
        if args.words:
            sifs["words"] = corpus_sif(Tokenizer.from_file(args.words), texts, args.sif)
        log(f"corpus SIF weights in {time.time() - t0:.1f} s")

    for spec in args.run:
        cfg = dict(kv.split("=") for kv in spec.split(","))
        try:
            v = cfg.get("vocab", "pieces")
            summary.extend(fit_run(cfg, inits[v], projected, datas[v], train, held, vocabs[v], len(seqs), args))
            if v in sifs:
                # Reweighted from the written int8 rows, as `reweight` reads them: the same bytes.
                header, vocab_read, rows = read_vam(os.path.join(args.out_dir, f"{cfg['name']}.vam"))
                write_sif(os.path.join(args.out_dir, f"{cfg['name']}-sif.vam"), header, vocab_read, rows, sifs[v], args.sif)
                os.remove(os.path.join(args.out_dir, f"{cfg['name']}.vam"))
        except Exception as e:  # one run failing leaves the others' files
            log(f"{cfg.get('name')}: failed: {e!r}")
        json.dump(summary, open(os.path.join(args.out_dir, "summary.json"), "w"), indent=1)


def fit_run(cfg, init, projected, data, train, held, vocab, passages, args):
    """One fit (a --run): writes the pass best on the held-out passages (and pass 1 with also=1)."""
    device, n = init.device, init.shape[0]
    name = cfg["name"]
    loss = cfg.get("loss", "cosine")
    epochs = int(cfg.get("epochs", 1))
    batch = int(cfg.get("batch", 256))
    lr = float(cfg.get("lr", 0.01))
    tau = float(cfg.get("tau", 0.07))
    cos_weight = float(cfg.get("cos_weight", 1))
    table = torch.nn.Parameter(init.clone())
    weight = torch.nn.Parameter(torch.ones(n, 1, device=device))
    rms = init.pow(2).mean().sqrt().item()
    # Sparse Adam, as fit.rs: a row no passage of the batch has is not moved by momentum.
    opt = torch.optim.SparseAdam([table, weight], lr=lr * rms)
    describe = lambda kept: (
        f"distilled from all-MiniLM-L6-v2 and fitted to its vectors of {passages} passages "
        f"({loss} loss, pass {kept} of {epochs}, batch {batch}, step {lr} of the rows' rms"
        + (f", tau {tau}" if loss != "cosine" else "")
        + (f", cosine weight {cos_weight}" if loss == "mixed" else "")
        + (f", {n - 30522} whole words added to its pieces" if n > 30522 else "")
        + "), int8"
    )
    summary, best = [], (-1.0, None, 0)
    t0 = time.time()
    for epoch in range(1, epochs + 1):
        perm = train[torch.randperm(len(train), device=device)]
        for start in range(0, len(perm), batch):
            idx = perm[start : start + batch]
            ids, offsets = data.batch(idx)
            v = F.normalize(summed(table, weight, ids, offsets), dim=1)
            t = projected[idx]
            cos_loss = 1 - (v * t).sum(1).mean()
            if loss == "cosine":
                l = cos_loss
            else:
                l = F.cross_entropy((v @ t.T) / tau, torch.arange(len(idx), device=device))
                if loss == "mixed":
                    l = l + cos_weight * cos_loss
            opt.zero_grad(set_to_none=True)
            l.backward()
            opt.step()
        rows = (table.detach() * weight.detach()).clone()
        cos, top1 = evaluate(rows, data, held, projected)
        score = top1 if loss != "cosine" else cos
        log(f"{name}: pass {epoch}: held-out cosine {cos:.4f}, top-1 {top1:.4f} ({time.time() - t0:.0f} s)")
        summary.append({"name": name, "pass": epoch, "held_cos": cos, "held_top1": top1})
        if epoch == 1 and cfg.get("also") == "1" and epochs > 1:
            write_vam(os.path.join(args.out_dir, f"{name}-pass1.vam"), rows, vocab, f"static-minilm-l6-v2-256@gpu-{name}-pass1", describe(1))
        if score > best[0]:
            best = (score, rows, epoch)
    write_vam(os.path.join(args.out_dir, f"{name}.vam"), best[1], vocab, f"static-minilm-l6-v2-256@gpu-{name}", describe(best[2]))
    log(f"{name}: wrote pass {best[2]}")
    return summary


def read_vam(path):
    """A model file's header, vocabulary and rows (as float32: codes times scale)."""
    b = open(path, "rb").read()
    if b[:6] != b"VASTM\x01":
        raise SystemExit(f"{path} is not a static model file")
    at = 6
    (n,) = struct.unpack("<I", b[at : at + 4])
    header = json.loads(b[at + 4 : at + 4 + n])
    at += 4 + n
    (n,) = struct.unpack("<I", b[at : at + 4])
    vocab = b[at + 4 : at + 4 + n].decode().split("\n")
    at += 4 + n
    tokens, dims = header["tokens"], header["dimensions"]
    scale = torch.frombuffer(bytearray(b[at : at + 4 * tokens]), dtype=torch.float32)
    at += 4 * tokens
    codes = torch.frombuffer(bytearray(b[at : at + tokens * dims]), dtype=torch.int8).reshape(tokens, dims)
    return header, vocab, codes.float() * scale.unsqueeze(1)


def reweight(args):
    """SIF weights from the corpus's own token counts, on top of a fitted model (as tokenlearn
    weights its rows after training): a / (a + p(token)), so the commonest pieces count less."""
    if len(args.model) != len(args.out):
        raise SystemExit("give one --out for each --model")
    tokenizer = Tokenizer.from_file(args.tokenizer or os.path.join(args.minilm, "tokenizer.json"))
    weights = corpus_sif(tokenizer, read_passages(args.passages), args.sif)
    for model, out in zip(args.model, args.out):
        header, vocab, rows = read_vam(model)
        if len(vocab) != len(weights):
            raise SystemExit(f"{model} has {len(vocab)} tokens, the tokenizer {len(weights)}: give its --tokenizer")
        write_sif(out, header, vocab, rows, weights, args.sif, args.id)


def corpus_sif(tokenizer, texts, a):
    """Each token's SIF weight a / (a + p(token)), p from its count in the whole passages."""
    tokenizer.no_truncation()
    size = tokenizer.get_vocab_size()
    counts = torch.zeros(size, dtype=torch.float64)
    for start in range(0, len(texts), 50_000):
        ids = [i for e in tokenizer.encode_batch(texts[start : start + 50_000], add_special_tokens=False) for i in e.ids]
        counts += torch.bincount(torch.tensor(ids, dtype=torch.long), minlength=size).double()
    p = (counts + 1) / (counts.sum() + size)
    return (a / (a + p)).float()


def write_sif(out, header, vocab, rows, weights, a, model_id=None):
    source = header["source"].removesuffix(", int8") + f", then SIF weights (a = {a}) from the corpus's token counts, int8"
    write_vam(out, rows.cpu() * weights.unsqueeze(1), vocab, model_id or header["id"], source)
    log(f"wrote {out}: {(weights < 0.5).sum().item()} tokens weighted below one half")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--minilm", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--linear-int8", action="store_true", help="the layers' matrices as int8 too (a scale per output row): about 20 MB, for a corpus that needs the room")
    f = sub.add_parser("fit")
    f.add_argument("--minilm", required=True, help="config.json, vocab.txt, tokenizer.json")
    f.add_argument("--packed", required=True)
    f.add_argument("--passages", nargs="+", required=True)
    f.add_argument("--out-dir", required=True)
    f.add_argument("--dimensions", type=int, default=256)
    f.add_argument("--limit", type=int, default=0)
    f.add_argument("--batch-tokens", type=int, default=65536)
    f.add_argument("--check-original", action="store_true")
    f.add_argument("--write-distilled", action="store_true", help="also write the rows before fitting")
    f.add_argument("--reference", help="tests/fixtures/embed/minilm_reference.json")
    f.add_argument("--sif", type=float, default=0, help="write each run reweighted (as reweight --sif) instead")
    f.add_argument("--words", help="an extended tokenizer.json (scripts/fit_words.py), for runs with vocab=words")
    f.add_argument("--run", action="append", default=[], help="name=X,loss=cosine|contrastive|mixed,epochs=N,batch=N,lr=R,tau=T,cos_weight=W,also=1,vocab=pieces|words")
    r = sub.add_parser("reweight")
    r.add_argument("--model", action="append", required=True, help="a .vam that fit wrote (repeat for more)")
    r.add_argument("--tokenizer", help="the tokenizer.json it was fitted with (default: MiniLM's)")
    r.add_argument("--minilm", required=True, help="tokenizer.json")
    r.add_argument("--passages", nargs="+", required=True, help="the corpus it was fitted on")
    r.add_argument("--sif", type=float, default=1e-3)
    r.add_argument("--id", help="the id of the result (default: the model's)")
    r.add_argument("--out", action="append", required=True, help="one for each --model")
    args = parser.parse_args()
    {"pack": pack, "fit": fit, "reweight": reweight}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
