#!/usr/bin/env python3
"""Online LDA: svi against gensim on the same corpus, split and settings (not a test).

    python3 tests/bench/lda_vs_gensim.py CORPUS... [--svi build/release/bin/svi]
        [--budgets 15,60] [--out DIR] [--corpus-args "--subset 20news-bydate-train"]

Needs Debian's python3-gensim (gensim 4.2, numpy, scipy). Both tools get K = 100, minibatch
256, κ = 0.7 (gensim: decay), τ0 = 64 (gensim: offset), α = 1/K, η = 0.01, at most 100 local
iterations stopping when the mean change of γ falls under 0.001, one process.

The split is svi's: `svi split` writes the training documents and, for every test document, the
half of its words that conditions its topic proportions and the half that is scored. Both
models are scored by the same document-completion estimator (Hoffman et al. 2013): fit γ on
the observed half with the topics fixed, then per held-out word log Σ_k θ̄_k β̄_kw with
θ̄ = γ / Σγ and β̄_k = λ_k / Σ_w λ_kw; perplexity = exp(−mean). For svi the estimate comes from
its own evaluation (`perplexity` in trace.csv, all test documents); for gensim it is computed
here from gensim's λ and its own inference of γ.

Documents per second count training documents only (evaluation time is excluded on both sides).
gensim's LdaModel is fed 256-document chunks through update() until each budget is spent;
LdaMulticore (2 workers) is timed over one pass of the training set, since each update() call
starts its worker pool afresh.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

import numpy as np
from gensim.models import LdaModel, LdaMulticore

K, CHUNK, KAPPA, TAU0, ETA, ITERS, TOL = 100, 256, 0.7, 64.0, 0.01, 100, 0.001


def read_ldac(path):
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            docs.append([(int(w), int(c)) for w, c in (p.split(":") for p in parts[1:])])
    return docs


def completion_perplexity(lam, infer, observed, heldout):
    """Per-word held-out log-likelihood and perplexity of a model given by λ (K×V) and a
    function giving γ for a list of bag-of-words documents."""
    beta = lam / lam.sum(axis=1, keepdims=True)
    gamma = infer(observed)
    theta = gamma / gamma.sum(axis=1, keepdims=True)
    total, words = 0.0, 0
    for d, doc in enumerate(heldout):
        if not doc:
            continue
        ids = np.fromiter((w for w, _ in doc), dtype=np.int64)
        counts = np.fromiter((c for _, c in doc), dtype=np.float64)
        p = theta[d] @ beta[:, ids]
        total += float(counts @ np.log(p))
        words += int(counts.sum())
    per_word = total / words
    return per_word, float(np.exp(-per_word))


def gensim_infer(model):
    def infer(docs):
        gamma, _ = model.inference(docs)
        return gamma
    return infer


def run_gensim(train, observed, heldout, vocab_size, budgets):
    model = LdaModel(num_topics=K, id2word={i: str(i) for i in range(vocab_size)}, chunksize=CHUNK, decay=KAPPA, offset=TAU0,
                     alpha="symmetric", eta=ETA, iterations=ITERS, gamma_threshold=TOL,
                     update_every=1, passes=1, eval_every=None, random_state=1,
                     dtype=np.float64)
    rows, trained, elapsed, start = [], 0, 0.0, 0
    for budget in budgets:
        while elapsed < budget:
            chunk = train[start:start + CHUNK]
            if len(chunk) < CHUNK:  # wrap around: epochs as svi counts them
                chunk = chunk + train[:CHUNK - len(chunk)]
            start = (start + CHUNK) % len(train)
            t0 = time.perf_counter()
            model.update(chunk, chunksize=CHUNK, update_every=1, passes=1, eval_every=None,
                         decay=KAPPA, offset=TAU0, iterations=ITERS, gamma_threshold=TOL)
            elapsed += time.perf_counter() - t0
            trained += len(chunk)
        per_word, perplexity = completion_perplexity(model.state.get_lambda(), gensim_infer(model),
                                                     observed, heldout)
        rows.append({"tool": "gensim LdaModel", "budget_s": budget, "train_s": elapsed,
                     "documents": trained, "docs_per_s": trained / elapsed,
                     "heldout_loglik_per_word": per_word, "perplexity": perplexity})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def run_multicore(train, observed, heldout, vocab_size):
    t0 = time.perf_counter()
    model = LdaMulticore(corpus=train, num_topics=K, id2word={i: str(i) for i in range(vocab_size)},
                         workers=2, chunksize=CHUNK, decay=KAPPA, offset=TAU0, alpha="symmetric",
                         eta=ETA, iterations=ITERS, gamma_threshold=TOL, passes=1,
                         eval_every=None, random_state=1, dtype=np.float64)
    elapsed = time.perf_counter() - t0
    per_word, perplexity = completion_perplexity(model.state.get_lambda(), gensim_infer(model),
                                                 observed, heldout)
    row = {"tool": "gensim LdaMulticore (2 workers), one pass", "budget_s": None,
           "train_s": elapsed, "documents": len(train), "docs_per_s": len(train) / elapsed,
           "heldout_loglik_per_word": per_word, "perplexity": perplexity}
    print(json.dumps(row), flush=True)
    return [row]


def run_svi(svi, corpus, corpus_args, threads, budgets, out, n_test):
    run_dir = os.path.join(out, f"svi_{threads}t")
    cmd = [svi, "run", *corpus, *corpus_args, "--model", "lda", "--algorithm", "svi",
           "--set", f"K={K}", "--set", f"minibatch={CHUNK}", "--set", f"kappa={KAPPA}",
           "--set", f"tau0={TAU0}", "--set", f"eta={ETA}", "--set", f"local_iters={ITERS}",
           "--set", f"local_tol={TOL}", "--set", f"eval_docs={n_test}",
           "--seconds", str(max(budgets)), "--eval-every", str(min(budgets)),
           "--threads", str(threads), "--out", run_dir, "--quiet"]
    subprocess.run(cmd, check=True)
    with open(os.path.join(run_dir, "trace.csv"), newline="") as f:
        trace = list(csv.DictReader(f))
    rows = []
    for budget in budgets:
        # The first snapshot at or after the budget (snapshots fall every min(budgets) seconds).
        snap = next((s for s in trace if float(s["train_seconds"]) >= budget - 1e-6), trace[-1])
        seconds = float(snap["train_seconds"])
        docs = int(snap["step"]) * CHUNK
        rows.append({"tool": f"svi ({threads} thread{'s' if threads > 1 else ''})",
                     "budget_s": budget, "train_s": seconds, "documents": docs,
                     "docs_per_s": docs / seconds,
                     "heldout_loglik_per_word": float(snap["heldout_loglik_per_word"]),
                     "perplexity": float(snap["perplexity"])})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="+", help="corpus file(s) or folder, as svi reads them")
    ap.add_argument("--svi", default="build/release/bin/svi")
    ap.add_argument("--budgets", default="15,60")
    ap.add_argument("--out", default="lda_bench")
    ap.add_argument("--corpus-args", default="", help="extra svi corpus options, e.g. --subset X")
    ap.add_argument("--skip-multicore", action="store_true")
    args = ap.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    corpus_args = args.corpus_args.split()
    os.makedirs(args.out, exist_ok=True)

    split_dir = os.path.join(args.out, "split")
    subprocess.run([args.svi, "split", *args.corpus, *corpus_args, "--out", split_dir], check=True)
    train = read_ldac(os.path.join(split_dir, "train.ldac"))
    observed = read_ldac(os.path.join(split_dir, "test_observed.ldac"))
    heldout = read_ldac(os.path.join(split_dir, "test_heldout.ldac"))
    with open(os.path.join(split_dir, "vocab.txt"), encoding="utf-8") as f:
        vocab_size = sum(1 for _ in f)
    print(f"{len(train)} training documents, {len(observed)} test documents, "
          f"{vocab_size} words", flush=True)

    rows = []
    rows += run_svi(args.svi, args.corpus, corpus_args, 1, budgets, args.out, len(observed))
    rows += run_svi(args.svi, args.corpus, corpus_args, 2, budgets, args.out, len(observed))
    rows += run_gensim(train, observed, heldout, vocab_size, budgets)
    if not args.skip_multicore:
        rows += run_multicore(train, observed, heldout, vocab_size)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(rows, f, indent=2)
    print(f"\n{'tool':44s} {'budget':>7s} {'docs/s':>9s} {'per word':>9s} {'perplexity':>11s}")
    for r in rows:
        budget = "pass" if r["budget_s"] is None else f"{r['budget_s']:.0f} s"
        print(f"{r['tool']:44s} {budget:>7s} {r['docs_per_s']:9.0f} "
              f"{r['heldout_loglik_per_word']:9.4f} {r['perplexity']:11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
