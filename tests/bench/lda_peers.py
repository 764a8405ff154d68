#!/usr/bin/env python3
"""Online LDA: svi against gensim and scikit-learn, same splits, settings and budgets (not a test).

    /usr/bin/python3 tests/bench/lda_peers.py --svi build/release/bin/svi \\
        --corpus ap=DATA/text/ap_blei_ldac/ap.dat \\
        --corpus "20ng=DATA/text/20news-bydate.tar.gz::--subset 20news-bydate-train \\
            --strip-headers" \\
        --long-docs DATA/text/20news-bydate.tar.gz \\
        [--K 100,1000] [--budgets 30,60] [--algorithms svi,mimno-svi] [--peers gensim,sklearn]
        [--out lda_peers]

Needs Debian's python3-gensim (gensim 4.2) and python3-sklearn (scikit-learn 1.2.1), with
numpy and scipy. Every tool runs in one process on one thread with one BLAS thread
(OMP/OPENBLAS/MKL_NUM_THREADS=1, set before numpy is imported; svi gets --threads 1).

--corpus NAME=PATH[::ARGS] is a corpus as svi reads it, ARGS its svi corpus options (repeatable).
--long-docs 20NG_TAR_GZ adds "20ng-long", documents as long as NIPS papers made from 20
Newsgroups. Why: NIPS 0-12 papers average about 1,300 tokens after stop words, 20NG posts and AP
articles 130-200, and the local step (γ's iterations, or Mimno-SVI's Gibbs sweeps), where the
tools differ most, costs in proportion to a document's length; no NIPS corpus is on the machine.
How: the 20news-bydate-train posts of each newsgroup, in file-number order, have their headers
stripped as svi's --strip-headers does (the Subject's words kept) and are concatenated in runs of
consecutive posts until a run holds at least 1,300 tokens, counted as svi tokenizes (runs of 2+
letters, lower case, resources/stopwords_en.txt dropped); a newsgroup's shorter last run is
dropped. That gives 922 documents of about 1,600 tokens each as svi reads them (a run overshoots
by part of its last post), written as plain-text files into OUT/long_docs, a folder svi reads.

Shared settings: K topics (--K), minibatch 256, κ = 0.7, τ0 = 64, α = 1/K, η = 0.01, at most 100
local iterations stopping when the mean |Δγ| falls under 0.001, seed 1.
  svi: `svi run CORPUS --model lda --algorithm A` for each A of --algorithms with these --set
    (those A takes), --seconds max(budgets), a snapshot every min(budgets) seconds scoring every
    test document (eval_docs = their number); a budget's row is its first snapshot at or after it
    (so the budgets are best multiples of the smallest).
  gensim LdaModel (float32, its default): decay κ, offset τ0, alpha 'symmetric', eta η,
    iterations 100, gamma_threshold 0.001, fed 256-document chunks through update().
  scikit-learn LatentDirichletAllocation: learning_method 'online', learning_decay κ,
    learning_offset τ0, batch_size 256, doc_topic_prior 1/K, topic_word_prior η,
    max_doc_update_iter 100, mean_change_tol 0.001, total_samples = training documents, n_jobs 1,
    random_state 1, fed 256-row CSR chunks through partial_fit().
Both peers take their chunks in order, wrapping around the training set, until each budget of
training seconds is spent (only update()/partial_fit() is timed). Documents per second count
training documents only; evaluation time is excluded for every tool.

Scoring: svi's split (`svi split`: train.ldac, test_observed.ldac, test_heldout.ldac) and the
document-completion estimator (Hoffman et al. 2013): θ of each test document fitted on its
observed half with the topics fixed, then per held-out word log Σ_k θ̄_k β̄_kw with
β̄_k = λ_k / Σ_w λ_kw; perplexity = exp(−mean). For svi it is its own evaluation (`perplexity` in
trace.csv); for gensim it is computed here from its λ and γ from its inference(), for
scikit-learn from components_ and the normalized θ of transform(). (svi writes only each topic's
top words, topics.csv, not λ, so its estimate cannot be recomputed here.)

Output: OUT/results.json (every row; a tool that failed on a corpus has an "error" and the
script goes on) and one markdown table, with svi's docs/s over gensim's and scikit-learn's at
the same corpus, K and budget.
"""

import argparse
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
import traceback

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy is imported: one BLAS thread for every tool

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

CHUNK, KAPPA, TAU0, ETA, ITERS, TOL, LONG_TOKENS = 256, 0.7, 64.0, 0.01, 100, 0.001, 1300
STOP_WORDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources",
                          "stopwords_en.txt")


# --- data ---------------------------------------------------------------------------------

def read_ldac(path):
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            docs.append([(int(w), int(c)) for w, c in (p.split(":") for p in parts[1:])])
    return docs


def to_csr(docs, vocab_size):
    indptr = np.cumsum([0] + [len(d) for d in docs])
    ids = np.fromiter((w for d in docs for w, _ in d), dtype=np.int32, count=indptr[-1])
    counts = np.fromiter((c for d in docs for _, c in d), dtype=np.float64, count=indptr[-1])
    return sp.csr_matrix((counts, ids, indptr), shape=(len(docs), vocab_size))


def svi_cmd(cmd):
    """Runs svi; a failure raises with svi's own message."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} exited {p.returncode}: "
                           f"{(p.stderr or p.stdout).strip()[-2000:]}")
    return p.stdout


def load_split(svi, path, corpus_args, split_dir):
    shutil.rmtree(split_dir, ignore_errors=True)
    svi_cmd([svi, "split", path, *corpus_args, "--out", split_dir])
    data = {name: read_ldac(os.path.join(split_dir, f"{name}.ldac"))
            for name in ("train", "test_observed", "test_heldout")}
    with open(os.path.join(split_dir, "vocab.txt"), encoding="utf-8") as f:
        data["V"] = sum(1 for _ in f)
    return data


# The long-documents corpus: svi's header stripping (core/io/tokenizer.cpp) and token count.
HEADER_FIELD = re.compile(r"[\x21-\x39\x3b-\x7e]+:")
WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")


def strip_headers(text):
    lines, subject, in_subject, body = text.split("\n"), "", False, ""
    for i, line in enumerate(lines):
        line = line[:-1] if line.endswith("\r") else line
        continuation = line[:1] in (" ", "\t") and line.strip() != ""
        if i == 0:
            if not HEADER_FIELD.match(line):
                return text
        elif not line.strip():
            body = "\n".join(lines[i + 1:])
            break
        elif not HEADER_FIELD.match(line) and not continuation:
            return text
        if continuation:
            subject += " " + line.strip() if in_subject else ""
        else:
            in_subject = line.lower().startswith("subject:")
            subject += " " + line[8:] if in_subject else ""
    subject = subject.strip()
    while subject.lower().startswith("re:"):
        subject = subject[3:].strip()
    return subject + "\n" + body if subject else body


def count_tokens(text, stop):
    n = 0
    for word in WORD.findall(text.lower()):
        word = word.replace("\u2019", "'")
        if len(word) > 2 and word.endswith("'s"):
            word = word[:-2]
        if len(word) - word.count("'") >= 2 and word not in stop:
            n += 1
    return n


def build_long_docs(tar_path, out_dir):
    with open(STOP_WORDS, encoding="utf-8") as f:
        stop = {w.strip().lower().replace("\u2019", "'") for w in f
                if w.strip() and not w.startswith("#")}
    posts = {}
    with tarfile.open(tar_path) as tar:
        for m in tar:
            parts = m.name.split("/")
            if m.isfile() and len(parts) >= 3 and parts[-3] == "20news-bydate-train":
                raw = tar.extractfile(m).read()
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    text = raw.decode("latin-1")
                posts.setdefault(parts[-2], []).append((parts[-1], strip_headers(text)))
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    docs, tokens_total = 0, 0
    for group in sorted(posts):
        run, tokens = [], 0
        for _, text in sorted(posts[group], key=lambda p: (len(p[0]), p[0])):  # numeric order
            run.append(text)
            tokens += count_tokens(text, stop)
            if tokens >= LONG_TOKENS:
                with open(os.path.join(out_dir, f"{group}.{docs:05d}.txt"), "w",
                          encoding="utf-8") as f:
                    f.write("\n\n".join(run))
                docs, tokens_total, run, tokens = docs + 1, tokens_total + tokens, [], 0
    print(f"long documents: {docs} from {sum(map(len, posts.values()))} posts, "
          f"{tokens_total / max(docs, 1):.0f} tokens each on average", flush=True)
    return out_dir


# --- scoring and the peers ----------------------------------------------------------------

def completion_perplexity(lam, theta, heldout):
    """Per-word held-out log-likelihood and perplexity under topics λ (K×V, any scale per row)
    and normalized θ (one row per test document)."""
    lam = np.asarray(lam)
    theta_over_norm = np.asarray(theta, dtype=np.float64) / lam.sum(axis=1, dtype=np.float64)
    total, words = 0.0, 0
    for d, doc in enumerate(heldout):
        if not doc:
            continue
        ids = np.fromiter((w for w, _ in doc), dtype=np.int64)
        counts = np.fromiter((c for _, c in doc), dtype=np.float64)
        p = theta_over_norm[d] @ lam[:, ids].astype(np.float64)
        total += float(counts @ np.log(p))
        words += int(counts.sum())
    per_word = total / words
    return per_word, float(np.exp(-per_word))


def train_for_budgets(tool, update, score, n_train, budgets):
    """Calls update(indices of the next 256 training documents) until each budget of training
    seconds is spent, then score() -> (per word, perplexity), untimed."""
    rows, trained, elapsed, start = [], 0, 0.0, 0
    for budget in budgets:
        while elapsed < budget:
            idx = np.arange(start, start + CHUNK) % n_train  # wrap around: epochs as svi's
            start = (start + CHUNK) % n_train
            t0 = time.perf_counter()
            update(idx)
            elapsed += time.perf_counter() - t0
            trained += CHUNK
        per_word, perplexity = score()
        rows.append({"tool": tool, "budget_s": budget, "train_s": elapsed, "documents": trained,
                     "docs_per_s": trained / elapsed, "heldout_loglik_per_word": per_word,
                     "perplexity": perplexity})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def run_gensim(data, K, budgets):
    from gensim.models import LdaModel
    train = data["train"]
    model = LdaModel(num_topics=K, id2word={i: str(i) for i in range(data["V"])},
                     chunksize=CHUNK, decay=KAPPA, offset=TAU0, alpha="symmetric", eta=ETA,
                     iterations=ITERS, gamma_threshold=TOL, update_every=1, passes=1,
                     eval_every=None, random_state=1)

    def update(idx):
        model.update([train[i] for i in idx], chunksize=CHUNK, update_every=1, passes=1,
                     eval_every=None, decay=KAPPA, offset=TAU0, iterations=ITERS,
                     gamma_threshold=TOL)

    def score():
        gamma, _ = model.inference(data["test_observed"])
        gamma = gamma.astype(np.float64)
        return completion_perplexity(model.state.get_lambda(),
                                     gamma / gamma.sum(axis=1, keepdims=True),
                                     data["test_heldout"])

    return train_for_budgets("gensim LdaModel", update, score, len(train), budgets)


def run_sklearn(data, K, budgets):
    from sklearn.decomposition import LatentDirichletAllocation
    X = to_csr(data["train"], data["V"])
    observed = to_csr(data["test_observed"], data["V"])
    model = LatentDirichletAllocation(
        n_components=K, learning_method="online", learning_decay=KAPPA, learning_offset=TAU0,
        batch_size=CHUNK, doc_topic_prior=1.0 / K, topic_word_prior=ETA,
        max_doc_update_iter=ITERS, mean_change_tol=TOL, total_samples=X.shape[0], n_jobs=1,
        random_state=1)

    def score():
        return completion_perplexity(model.components_, model.transform(observed),
                                     data["test_heldout"])

    return train_for_budgets("sklearn LDA", lambda idx: model.partial_fit(X[idx]), score,
                             X.shape[0], budgets)


# --- svi ----------------------------------------------------------------------------------

def svi_params(svi):
    """The parameters each LDA algorithm takes, from `svi list --json` (None: unknown)."""
    try:
        return {e["algorithm"]: {p["key"] for p in e["params"]}
                for e in json.loads(svi_cmd([svi, "list", "--json"])) if e["model"] == "lda"}
    except Exception as e:  # noqa: BLE001 — pass every setting, svi will say what it refuses
        print(f"svi list --json: {e}", file=sys.stderr)
        return None


def run_svi(svi, algorithm, takes, path, corpus_args, K, data, budgets, run_dir):
    settings = {"K": K, "minibatch": CHUNK, "kappa": KAPPA, "tau0": TAU0, "alpha": 1.0 / K,
                "eta": ETA, "local_iters": ITERS, "local_tol": TOL,
                "eval_docs": len(data["test_observed"])}
    sets = [a for k, v in settings.items() if takes is None or k in takes
            for a in ("--set", f"{k}={v}")]
    svi_cmd([svi, "run", path, *corpus_args, "--model", "lda", "--algorithm", algorithm, *sets,
             "--seconds", str(max(budgets)), "--eval-every", str(min(budgets)), "--seed", "1",
             "--threads", "1", "--out", run_dir, "--force", "--quiet"])
    with open(os.path.join(run_dir, "trace.csv"), newline="") as f:
        trace = list(csv.DictReader(f))
    rows = []
    for budget in budgets:
        # The first snapshot at or after the budget (snapshots fall every min(budgets) seconds).
        snap = next((s for s in trace if float(s["train_seconds"]) >= budget - 1e-6), trace[-1])
        seconds = float(snap["train_seconds"])
        docs = round(float(snap["epochs"]) * len(data["train"]))
        rows.append({"tool": f"svi {algorithm}", "budget_s": budget, "train_s": seconds,
                     "documents": docs, "steps": int(snap["step"]), "docs_per_s": docs / seconds,
                     "heldout_loglik_per_word": float(snap["heldout_loglik_per_word"]),
                     "perplexity": float(snap["perplexity"])})
        print(json.dumps(rows[-1]), flush=True)
    return rows


# --- driver -------------------------------------------------------------------------------

def parse_corpus(spec):
    name, sep, rest = spec.partition("=")
    if not sep or not name or not rest:
        raise argparse.ArgumentTypeError(f"--corpus wants NAME=PATH[::ARGS], not {spec!r}")
    path, _, extra = rest.partition("::")
    return name, path, shlex.split(extra)


def markdown(rows):
    def peer(r, tool):
        return next((p for p in rows if p.get("tool") == tool and "error" not in p and
                     (p["corpus"], p["K"], p["budget_s"]) == (r["corpus"], r["K"], r["budget_s"])),
                    None)

    lines = ["| corpus | K | tool | budget | docs/s | held-out log-lik. per word | perplexity "
             "| svi ÷ gensim docs/s | svi ÷ sklearn docs/s |", "|" + "---|" * 9]
    for r in rows:
        if "error" in r:
            k = r["K"] or "—"
            lines.append(f"| {r['corpus']} | {k} | {r['tool']} | — | failed | | | | |")
            continue
        ratios = ["", ""]
        if r["tool"].startswith("svi "):
            for i, tool in enumerate(("gensim LdaModel", "sklearn LDA")):
                p = peer(r, tool)
                ratios[i] = f"{r['docs_per_s'] / p['docs_per_s']:.1f}×" if p else "—"
        per_word = f"{r['heldout_loglik_per_word']:.4f}".replace("-", "−")
        lines.append(f"| {r['corpus']} | {r['K']} | {r['tool']} | {r['budget_s']:g} s "
                     f"| {r['docs_per_s']:,.0f} | {per_word} | {r['perplexity']:,.1f} "
                     f"| {ratios[0]} | {ratios[1]} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", action="append", default=[], type=parse_corpus,
                    metavar="NAME=PATH[::ARGS]", help="a corpus and its svi corpus options")
    ap.add_argument("--long-docs", metavar="20NG_TAR_GZ",
                    help="add the NIPS-length documents made from 20 Newsgroups")
    ap.add_argument("--svi", default="build/release/bin/svi")
    ap.add_argument("--K", default="100,1000")
    ap.add_argument("--budgets", default="30,60", help="training seconds, comma-separated")
    ap.add_argument("--algorithms", default="svi,mimno-svi", help="svi's LDA algorithms")
    ap.add_argument("--peers", default="gensim,sklearn", help="gensim, sklearn or both")
    ap.add_argument("--out", default="lda_peers")
    args = ap.parse_args()
    budgets = sorted(float(b) for b in args.budgets.split(","))
    Ks = [int(k) for k in args.K.split(",")]
    algorithms = [a for a in args.algorithms.split(",") if a]
    known = {"gensim": ("gensim LdaModel", run_gensim), "sklearn": ("sklearn LDA", run_sklearn)}
    peers = [known[p] for p in args.peers.split(",") if p]
    os.makedirs(args.out, exist_ok=True)
    corpora = list(args.corpus)
    if args.long_docs:
        try:
            corpora.append(("20ng-long", build_long_docs(args.long_docs,
                                                         os.path.join(args.out, "long_docs")), []))
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    if not corpora:
        ap.error("no corpus: give --corpus NAME=PATH and/or --long-docs")
    takes = svi_params(args.svi)

    rows = []

    def attempt(corpus, K, tool, fn):
        print(f"== {corpus}, K = {K}: {tool}", flush=True)
        try:
            got = fn()
        except Exception as e:  # noqa: BLE001 — one tool failing must not stop the others
            if isinstance(e, RuntimeError):  # svi's own message says it
                print(f"failed: {e}", file=sys.stderr, flush=True)
            else:
                traceback.print_exc()
            got = [{"tool": tool, "error": f"{type(e).__name__}: {e}"}]
        rows.extend({"corpus": corpus, "K": K, **r} for r in got)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(rows, f, indent=2)

    for name, path, corpus_args in corpora:
        try:
            data = load_split(args.svi, path, corpus_args, os.path.join(args.out, name, "split"))
        except Exception as e:  # noqa: BLE001
            print(f"== {name}: no split: {e}", flush=True)
            rows.append({"corpus": name, "K": None, "tool": "svi split", "error": str(e)})
            continue
        print(f"== {name}: {len(data['train'])} training documents, "
              f"{len(data['test_observed'])} test documents, {data['V']} words", flush=True)
        for K in Ks:
            for a in algorithms:
                run_dir = os.path.join(args.out, name, f"K{K}", f"svi-{a}")
                attempt(name, K, f"svi {a}", lambda: run_svi(
                    args.svi, a, None if takes is None else takes.get(a), path, corpus_args, K,
                    data, budgets, run_dir))
            for tool, fn in peers:
                attempt(name, K, tool, lambda: fn(data, K, budgets))
    print("\n" + markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
