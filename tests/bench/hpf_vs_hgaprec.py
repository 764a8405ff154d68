#!/usr/bin/env python3
"""HPF / Poisson factorization: hgaprec or other factors, one top-N protocol (not a test).

hgaprec is Gopalan, Hofman & Blei's C++ code (github premgopalan/hgaprec).

    python3 tests/bench/hpf_vs_hgaprec.py --split DIR --hgaprec PATH/hgaprec
        [-k 100] [--model hier|pf] [--seed 1] [--rfreq 10] [--max-iterations 1000]
        [--workdir DIR] [--export-factors DIR] [--topn 10,20,100] [--hit-threshold 1]
    python3 tests/bench/hpf_vs_hgaprec.py --split DIR --factors-dir DIR [--topn 20]

Needs numpy (Debian's python3-numpy: run with /usr/bin/python3 if another python3 comes first).
DIR (--split) holds hgaprec's inputs: train.tsv, validation.tsv, test.tsv, each line
"user TAB item TAB rating" (integer ids as in the source data); test_users.tsv (one user id
a line), if present, makes hgaprec score those users when it stops. --factors-dir DIR holds
user_factors.tsv and item_factors.tsv as svi writes them: a header line "user_id (or item_id)
TAB factor_1 ... TAB factor_K", then each line "id TAB E[.]_1 ... TAB E[.]_K" (a file without
the header, as older runs wrote, is read too).

hgaprec is run as `hgaprec -dir DIR -n N -m M -k K [-hier] -seed S -rfreq R
-max-iterations I` in a fresh working directory (batch coordinate-ascent VB; it has no
stochastic mode). It prints "\\r iteration i" after each update and flushes, so seconds per
iteration are the gaps between those lines as read here; gaps that include its evaluation
every R iterations (held-out likelihood, precision, saving the model) are reported apart.
Its factors are read back as shape/rate (E = shape/rate; hier: htheta/hbeta, pf: theta/beta),
which keeps more significant digits for small E than its E[.] files (printed %.8f).

Protocol (the same for every model and for the popularity baseline, score = number of
training ratings of the item): for each user with at least one relevant test rating
(rating >= --hit-threshold; the default 1 means every test rating), rank every item with
factors that is not among the user's training or validation ratings by E[theta_u].E[beta_i]
(ties: lower item id first), take the top N; hits = relevant test items among them.
Printed, averaged over those users:
  P@N     = hits / N
  nP@N    = hits / min(N, |T_u|)    (= the "recall@N" of our spec; the paper's plots call it
                                     "normalized precision", plots/src/analysis.R)
  R@N     = hits / |T_u|            (the paper's "recall")
  hgP@N   = hits / N over every user with any test rating (hgaprec's own precision.txt
            definition, N = 10 and 100 there; matches its last row when test_users.tsv
            lists all test users)
Held-out log-likelihood (hgaprec's definition): mean over test ratings y of
y log s - s - log y!, s = max(E[theta_u].E[beta_i], 1e-30).
"""

import argparse
import glob
import math
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def read_tsv(path):
    with open(path) as f:
        return [tuple(int(x) for x in line.split("\t")[:3]) for line in f if line.strip()]


def read_factors(path, skip):
    """{id: row}, from lines 'id v1..vK' (skip=0) or hgaprec's 'seq id v1..vK' (skip=1); a
    header line (svi's "user_id factor_1 ...": its id cell is not a number) is skipped."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f):
            c = line.split()
            if not c:
                continue
            if n == 0 and not c[skip].lstrip("-").isdigit():
                continue
            out[int(c[skip])] = np.array(c[skip + 1:], dtype=float)
    return out


def hgaprec_factors(outdir, name):
    """E[.] = shape / rate from hgaprec's NAME_shape.tsv and NAME_rate.tsv."""
    shape = read_factors(os.path.join(outdir, name + "_shape.tsv"), 1)
    rate_path = os.path.join(outdir, name + "_rate.tsv")
    rows = [line.split() for line in open(rate_path) if line.strip()]
    if len(rows[0]) == 3 and len(rows) == len(next(iter(shape.values()))):
        glob_rate = np.array([float(r[2]) for r in rows])  # pf: one rate per factor
        return {i: s / glob_rate for i, s in shape.items()}
    rate = {int(r[1]): np.array(r[2:], dtype=float) for r in rows}
    return {i: s / rate[i] for i, s in shape.items()}


def run_hgaprec(a, n_users, n_items):
    work = a.workdir or tempfile.mkdtemp(prefix="hgaprec-")
    os.makedirs(work, exist_ok=True)
    cmd = [a.hgaprec, "-dir", os.path.abspath(a.split), "-n", str(n_users), "-m", str(n_items),
           "-k", str(a.k), "-seed", str(a.seed), "-rfreq", str(a.rfreq),
           "-max-iterations", str(a.max_iterations)] + (["-hier"] if a.model == "hier" else [])
    print("run:", " ".join(cmd), "  (in", work + ")")
    load0 = os.getloadavg()
    err = open(os.path.join(work, "stderr.txt"), "w")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=err)
    marks, buf, threads, log, coalesced = [], b"", 0, [], 0
    pat = re.compile(rb"iteration (\d+)")
    while True:
        chunk = os.read(p.stdout.fileno(), 65536)
        now = time.monotonic()
        if not chunk:
            break
        log.append(chunk)
        buf += chunk
        found = [int(m.group(1)) for m in pat.finditer(buf)]
        coalesced += max(len(found) - 1, 0)  # several in one read share a timestamp
        marks += [(i, now) for i in found]
        buf = buf[buf.rfind(b"iteration") + 9:] if pat.search(buf) else buf[-64:]
        try:
            with open(f"/proc/{p.pid}/status") as f:
                threads = max(threads, int(re.search(r"Threads:\s+(\d+)", f.read()).group(1)))
        except (OSError, AttributeError):
            pass
        if now - t0 > a.timeout:
            p.kill()
            print(f"killed after {a.timeout} s")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    t_end = time.monotonic()
    with open(os.path.join(work, "stdout.txt"), "wb") as f:
        f.write(b"".join(log))
    outdirs = sorted(glob.glob(os.path.join(work, "n*-m*-k*")), key=os.path.getmtime)
    if p.returncode != 0 or not outdirs or not marks:
        sys.exit(f"hgaprec failed (exit {p.returncode}); see {work}")
    out = outdirs[-1]

    gaps = [(i, t - tp) for (ip, tp), (i, t) in zip(marks, marks[1:])]
    pure = sorted(g for i, g in gaps if (i - 1) % a.rfreq != 0)
    wall = t_end - t0
    print(f"hgaprec: {marks[-1][0] + 1} iterations (0..{marks[-1][0]}), wall {wall:.2f} s, "
          f"cpu {ru.ru_utime + ru.ru_stime:.2f} s, max threads seen {threads}, "
          f"load avg before/after {load0[0]:.2f}/{os.getloadavg()[0]:.2f}")
    if pure:
        print(f"  s/iteration (update only, {len(pure)} gaps): min {pure[0]:.4f} "
              f"median {pure[len(pure) // 2]:.4f}; all gaps mean "
              f"{sum(g for _, g in gaps) / max(len(gaps), 1):.4f}; start->iter 0 "
              f"{marks[0][1] - t0:.3f} s; last iter->exit {t_end - marks[-1][1]:.3f} s"
              + (f"; {coalesced} lines arrived together (gap 0)" if coalesced else ""))

    def last(name):
        path = os.path.join(out, name)
        rows = [l.split() for l in open(path) if l.strip()] if os.path.exists(path) else []
        return rows[-1] if rows else None

    mx, pr, te, va = last("max.txt"), last("precision.txt"), last("test.txt"), last("validation.txt")
    why = {"0": "validation loglik rel. change < 1e-6", "1": "validation loglik fell 3 checks running",
           "-1": "no stop rule fired (iteration limit?)"}
    if mx:
        print(f"  stop: iteration {mx[0]}, {why.get(mx[3], mx[3])}")
    if pr:
        print(f"  own precision.txt last row: {pr[0]} users, P@10 {pr[1]}, P@100 {pr[2]}")
    if te and va:
        print(f"  own held-out loglik (iter {te[0]}): test {te[2]} ({te[3]} ratings), "
              f"validation (iter {va[0]}) {va[2]}")
    names = ("htheta", "hbeta") if a.model == "hier" else ("theta", "beta")
    return hgaprec_factors(out, names[0]), hgaprec_factors(out, names[1])


def evaluate(label, users, items, score_chunk, train, valid, test, topns, thr):
    """Print P@N, nP@N, R@N, hgP@N for scores from score_chunk(user_index_array)."""
    uix = {u: j for j, u in enumerate(users)}
    iix = {i: j for j, i in enumerate(items)}
    seen = {}
    for u, i, _ in train + valid:
        if u in uix and i in iix:
            seen.setdefault(uix[u], []).append(iix[i])
    rel, anytest = {}, set()
    for u, i, r in test:
        if u in uix:
            anytest.add(uix[u])
            if r >= thr:
                rel.setdefault(uix[u], set()).add(iix.get(i, -1))
    rows = np.array(sorted(anytest))
    maxn = max(topns)
    acc = {n: [0.0, 0.0, 0.0, 0.0] for n in topns}
    for s in range(0, len(rows), 1024):
        chunk = rows[s:s + 1024]
        sc = score_chunk(chunk)
        for r, u in enumerate(chunk):
            sc[r, seen.get(u, [])] = -np.inf
        top = np.argsort(-sc, axis=1, kind="stable")[:, :maxn]
        for r, u in enumerate(chunk):
            t = rel.get(u, set())
            hit = np.cumsum([it in t for it in top[r]])
            for n in topns:
                h = float(hit[n - 1]) if len(hit) >= n else float(hit[-1])
                acc[n][3] += h / n
                if t:
                    acc[n][0] += h / n
                    acc[n][1] += h / min(n, len(t))
                    acc[n][2] += h / len(t)
    nu = len(rel)
    for n in topns:
        p, pn, r, hp = acc[n]
        print(f"{label:<12} N={n:<3} users {nu}: P@N {p / nu:.4f}  nP@N {pn / nu:.4f}  "
              f"R@N {r / nu:.4f}  hgP@N {hp / len(rows):.4f} ({len(rows)} users)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", required=True, help="dir with train/validation/test.tsv")
    ap.add_argument("--hgaprec", help="path of the built hgaprec binary")
    ap.add_argument("--factors-dir", help="score user_factors.tsv/item_factors.tsv instead")
    ap.add_argument("-k", type=int, default=100)
    ap.add_argument("--model", choices=("hier", "pf"), default="hier",
                    help="hier = HPF (-hier), pf = non-hierarchical Poisson factorization")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rfreq", type=int, default=10, help="hgaprec -rfreq (evaluation period)")
    ap.add_argument("--max-iterations", type=int, default=1000, help="(hgaprec: only -hier obeys)")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--workdir", help="where hgaprec writes its output dir (default: new temp dir)")
    ap.add_argument("--export-factors", help="write hgaprec's factors in --factors-dir format")
    ap.add_argument("--topn", default="20", help="comma-separated N values")
    ap.add_argument("--hit-threshold", type=int, default=1, help="relevant test rating >= this")
    ap.add_argument("--no-popularity", action="store_true")
    a = ap.parse_args()
    if bool(a.hgaprec) == bool(a.factors_dir):
        ap.error("give exactly one of --hgaprec and --factors-dir")

    train = read_tsv(os.path.join(a.split, "train.tsv"))
    valid = read_tsv(os.path.join(a.split, "validation.tsv"))
    test = read_tsv(os.path.join(a.split, "test.tsv"))
    topns = [int(x) for x in a.topn.split(",")]

    if a.hgaprec:
        n_users = len({u for u, _, _ in train})
        n_items = len({i for _, i, _ in train})
        theta, beta = run_hgaprec(a, n_users, n_items)
        label = f"hgaprec-{a.model}"
    else:
        theta = read_factors(os.path.join(a.factors_dir, "user_factors.tsv"), 0)
        beta = read_factors(os.path.join(a.factors_dir, "item_factors.tsv"), 0)
        label = "factors"
    if a.export_factors:
        os.makedirs(a.export_factors, exist_ok=True)
        for fname, fac, id_column in (("user_factors.tsv", theta, "user_id"),
                                      ("item_factors.tsv", beta, "item_id")):
            with open(os.path.join(a.export_factors, fname), "w") as f:
                k = len(next(iter(fac.values()))) if fac else 0
                f.write("\t".join([id_column] + [f"factor_{j + 1}" for j in range(k)]) + "\n")
                for i in sorted(fac):
                    f.write(str(i) + "\t" + "\t".join(f"{v:.10g}" for v in fac[i]) + "\n")

    users, items = sorted(theta), sorted(beta)
    U = np.array([theta[u] for u in users])
    B = np.array([beta[i] for i in items])
    uix, iix = {u: j for j, u in enumerate(users)}, {i: j for j, i in enumerate(items)}
    ll = [y * math.log(s) - s - math.lgamma(y + 1)
          for u, i, y in test if u in uix and i in iix
          for s in [max(float(U[uix[u]] @ B[iix[i]]), 1e-30)]]
    print(f"{label}: K {U.shape[1]}, {len(users)} users, {len(items)} items; "
          f"held-out loglik {sum(ll) / len(ll):.6f} over {len(ll)} test ratings")
    evaluate(label, users, items, lambda rows: U[rows] @ B.T, train, valid, test, topns,
             a.hit_threshold)
    if not a.no_popularity:
        pop = np.zeros(len(items))
        for _, i, _ in train:
            if i in iix:
                pop[iix[i]] += 1
        evaluate("popularity", users, items, lambda rows: np.tile(pop, (len(rows), 1)),
                 train, valid, test, topns, a.hit_threshold)


if __name__ == "__main__":
    main()
