#!/usr/bin/env python3
"""Logistic regression: scikit-learn's LogisticRegression as the peer of svi's Bayesian GLM
(not a test).

    /usr/bin/python3 tests/bench/glm_vs_sklearn.py TRAIN TEST [--dimension D] [--C 1.0]
        [--json FILE]

Reads the two LIBSVM files (a9a and a9a.t), takes the dimension from the training file (or
--dimension), z-scores every feature with the training rows' mean and standard deviation as
svi's labelled kind does (a constant column is centred only), fits LogisticRegression (L2,
lbfgs, an unpenalised intercept; C = 1 is the MAP estimate under svi's prior w ~ N(0, I)) and
prints the test error (%), the test NLL per example (nats, at the point estimate) and the fit
time. Needs Debian's python3-sklearn (scikit-learn 1.2, numpy, scipy): run it with
/usr/bin/python3 if another python3 comes first.
"""

import argparse
import json
import sys
import time

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("train")
    ap.add_argument("test")
    ap.add_argument("--dimension", type=int, default=0)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--json")
    a = ap.parse_args()

    x, y = load_svmlight_file(a.train, n_features=a.dimension or None)
    xt, yt = load_svmlight_file(a.test, n_features=x.shape[1])
    x, xt = x.toarray(), xt.toarray()
    mean, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd == 0] = 1.0
    x, xt = (x - mean) / sd, (xt - mean) / sd
    y, yt = (y > 0).astype(int), (yt > 0).astype(int)

    t0 = time.perf_counter()
    model = LogisticRegression(C=a.C, max_iter=5000).fit(x, y)
    seconds = time.perf_counter() - t0
    p = np.clip(model.predict_proba(xt)[:, 1], 1e-300, 1 - 1e-16)
    error = 100.0 * np.mean((p > 0.5) != (yt == 1))
    nll = -np.mean(np.where(yt == 1, np.log(p), np.log1p(-p)))
    out = {
        "peer": "sklearn LogisticRegression(C=%g, lbfgs)" % a.C,
        "train_rows": int(x.shape[0]),
        "test_rows": int(xt.shape[0]),
        "features": int(x.shape[1]),
        "test_error": round(float(error), 3),
        "test_nll": round(float(nll), 5),
        "fit_seconds": round(seconds, 3),
    }
    print(json.dumps(out))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    sys.exit(main())
