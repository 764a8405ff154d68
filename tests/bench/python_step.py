#!/usr/bin/env python3
"""What calling from Python costs: the same LDA run from `svi run` and from svi.run, alternated
(A B A B ...) so that the machine's drift falls on both, compared by training seconds per step
(summary.json's seconds_per_step: the clock the Runner keeps for steps alone).

    PYTHONPATH=build/release/python python3 tests/bench/python_step.py \\
        --svi build/release/bin/svi --corpus ap.dat [--K 100 --steps 300 --pairs 5]

Prints each pair and the median ratio Python / svi (1.00 = no cost). With --other SVI2 it
compares two svi binaries the same way instead (e.g. a build without position-independent
code against this one).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def cli_run(svi, args, folder):
    subprocess.run([svi, "run", args.corpus, "--model", "lda", "--algorithm", args.algorithm,
                    "--set", f"K={args.K}", "--steps", str(args.steps), "--threads", "1",
                    "--seed", "1", "--quiet", "--out", folder], check=True)
    with open(os.path.join(folder, "summary.json")) as f:
        return json.load(f)["seconds_per_step"]


def python_run(args, folder):
    import svi
    run = svi.run(args.corpus, model="lda", algorithm=args.algorithm, K=args.K, steps=args.steps,
                  threads=1, seed=1, out=folder)
    return run.summary["seconds_per_step"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--svi", required=True)
    p.add_argument("--other", help="a second svi to compare with instead of Python")
    p.add_argument("--corpus", required=True)
    p.add_argument("--algorithm", default="svi")
    p.add_argument("--K", type=int, default=100)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--pairs", type=int, default=5)
    args = p.parse_args()
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.pairs):
            a = cli_run(args.svi, args, os.path.join(tmp, f"a{i}"))
            b = (cli_run(args.other, args, os.path.join(tmp, f"b{i}")) if args.other
                 else python_run(args, os.path.join(tmp, f"b{i}")))
            ratios.append(b / a)
            print(f"pair {i + 1}: svi {a * 1e3:.2f} ms/step, {'other' if args.other else 'python'} "
                  f"{b * 1e3:.2f} ms/step, ratio {b / a:.4f}", flush=True)
    print(f"median ratio {'other' if args.other else 'python'} / svi: {statistics.median(ratios):.4f} "
          f"(min {min(ratios):.4f}, max {max(ratios):.4f}, {len(ratios)} pairs)")


if __name__ == "__main__":
    sys.exit(main())
