#!/usr/bin/env python3
"""Image inpainting: scikit-learn dictionary learning as a peer of svi's BPFA (not a test).

    python3 tests/bench/inpaint_vs_sklearn.py --original IMAGE --run DIR [--noise S]
        [--atoms 256] [--rounds R] [--sparsity S] [--json FILE] [--save PNG]
    python3 tests/bench/inpaint_vs_sklearn.py --original IMAGE --missing F --noise S --seed N ...

Needs Debian's python3-sklearn and python3-pil (scikit-learn 1.2, numpy, Pillow): run with
/usr/bin/python3 if another python3 comes first. tests/bench/inpaint_peer_all.sh runs it on a
folder of images with the masks made by svi.

The task. --run DIR takes exactly svi's task: DIR/observed.png (the pixels the model sees, noise
added, removed pixels 0) and DIR/mask.png (255 where observed, 0 where removed), as written by
`svi run IMAGE --missing F --noise S --split-seed N ... --out DIR`. σ is read from DIR/run.json
unless --noise is given. observed.png holds 8-bit values, so with noise the peer sees svi's noisy
pixels rounded and clipped to 0-255 (svi keeps them unrounded). Otherwise --missing F --noise S
--seed N makes a corruption here (numpy's default_rng(N)): exactly round((1 - F)·H·W) pixels
observed, chosen uniformly, and N(0, S²) added to them (not rounded or clipped). A colour
image is read as grey with the BT.601 weights, a 16-bit one scaled to 0-255, as svi does.

The method (the usual scikit-learn recipe for patch dictionaries, made to respect the mask):
  - Every overlapping 8×8 patch (a 256×256 image has 62,001; 512×512 has 255,025). Each patch's
    DC, the mean of its observed pixels, is removed before coding and added back after (a patch
    with no observed pixel takes the image's mean).
  - First fill: each missing pixel takes the mean DC of the patches that cover it.
  - Each round, a random subset of the patches of the filled image (--train-patches, values on
    the 0-1 scale, each patch's own mean removed) teaches
    sklearn.decomposition.MiniBatchDictionaryLearning a dictionary of --atoms atoms (lasso-LARS
    coding with --alpha, minibatches of --batch-size, --dl-epochs passes over the subset,
    stopping early as sklearn decides); from the second round on it starts from the previous
    dictionary (dict_init).
  - Every patch is then coded by masked orthogonal matching pursuit, written here: the atoms
    are restricted to the patch's observed pixels and renormalised on them. A constant atom is
    in every code from the start, so each least-squares refit re-estimates the DC together
    with the atoms; then the learned atom most correlated with the residual joins, all
    coefficients are refitted by least squares on the observed pixels, and so on until
    --sparsity learned atoms (at most |observed| - 1). With noise σ a patch stops as soon as
    its residual on the observed pixels falls to |observed|·(1.15·σ)², with at most
    --sparsity-noisy learned atoms. Patches are coded in blocks of 4096, each block vectorised
    in numpy (all patches of a block take a step together).
  - Each patch is rebuilt in full (all 64 pixels) from its atoms, and the overlapping estimates
    are averaged into the image (equal weights). Without noise the observed pixels keep their
    observed values; with noise every pixel takes the averaged estimate (the observed pixels
    are denoised too).
  - The next round fills the missing pixels (only them) from this image, and so on: --rounds
    rounds of learn, code, refill in all (an EM-like alternation).
The defaults (K = 256, 6 rounds, 3 atoms, α = 0.5, minibatch 256, one pass over 20,000 patches
a round) were tuned once, on house and peppers at 80 % missing, for quality within about a
minute a 256×256 image; the same settings serve every image and task. A constant atom always
in the code was worth about 0.4 dB on house over the DC removed once and left fixed.
Deterministic: one seed (--seed, also the corruption's) drives the subsets and sklearn; the
same inputs give the same scores with the same numpy, scikit-learn and BLAS.

Scores, on the 0-255 scale, the reconstruction clipped to [0, 255] as svi's: PSNR =
20·log10(255 / rmse) over all pixels, and over the removed pixels only (svi's psnr and
psnr_missing). Without noise both keep the observed pixels, so both figures compare like for
like; with noise both denoise every pixel.
Seconds are the wall time of the inpainting alone (reading the task excluded); they depend on
the BLAS numpy uses (Debian's default is the unoptimised reference BLAS).
"""

import argparse
import json
import math
import os
import sys
import time
import warnings

import numpy as np
from PIL import Image
import sklearn
from sklearn.decomposition import MiniBatchDictionaryLearning
from sklearn.exceptions import ConvergenceWarning

P = 8                 # patch side
NOISE_GAIN = 1.15     # residual tolerance per observed pixel: (NOISE_GAIN·σ)²
BLOCK = 4096          # patches coded at once by the vectorised masked OMP


def load_grey(path):
    """The image as float grey values on the 0-255 scale, as svi reads it."""
    im = Image.open(path)
    if im.mode in ("I;16", "I;16B", "I;16L", "I"):
        a = np.asarray(im, dtype=np.float64)
        return a * (255.0 / 65535.0) if a.max() > 255 or im.mode.startswith("I;16") else a
    if im.mode in ("L", "P", "1", "LA"):
        if im.mode == "P" and "transparency" not in im.info:
            rgb = np.asarray(im.convert("RGB"), dtype=np.float64)
            if np.all(rgb[..., 0] == rgb[..., 1]) and np.all(rgb[..., 1] == rgb[..., 2]):
                return rgb[..., 0]
            return rgb @ np.array([0.299, 0.587, 0.114])
        return np.asarray(im.convert("L"), dtype=np.float64)
    rgb = np.asarray(im.convert("RGB"), dtype=np.float64)
    return rgb @ np.array([0.299, 0.587, 0.114])


def corrupt(original, missing, noise, seed):
    """Our own corruption: a seeded mask with an exact observed count, Gaussian noise."""
    rng = np.random.default_rng(seed)
    H, W = original.shape
    keep = int(round((1.0 - missing) * H * W))
    if keep < 1:
        sys.exit(f"missing = {missing} leaves no observed pixel")
    mask = np.zeros(H * W, dtype=bool)
    mask[rng.permutation(H * W)[:keep]] = True
    mask = mask.reshape(H, W)
    observed = np.where(mask, original, 0.0)
    if noise > 0:
        observed = observed + np.where(mask, rng.normal(0.0, noise, size=(H, W)), 0.0)
    return observed, mask


def read_run(run_dir):
    observed = np.asarray(Image.open(os.path.join(run_dir, "observed.png")).convert("L"),
                          dtype=np.float64)
    mask = np.asarray(Image.open(os.path.join(run_dir, "mask.png")).convert("L")) > 127
    noise = None
    try:
        with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
            noise = float(json.load(f)["data"]["settings"]["noise"])
    except (OSError, KeyError, ValueError, TypeError):
        pass
    return np.where(mask, observed, 0.0), mask, noise


def patches(image):
    """Every overlapping P×P patch, one a row (row-major patch positions and pixels)."""
    v = np.lib.stride_tricks.sliding_window_view(image, (P, P))
    return v.reshape(-1, P * P)


def average_patches(rows, shape):
    """Each pixel: the mean of the estimates of it in every patch that covers it."""
    H, W = shape
    h, w = H - P + 1, W - P + 1
    acc = np.zeros(shape)
    cnt = np.zeros(shape)
    for i in range(P):
        for j in range(P):
            acc[i:i + h, j:j + w] += rows[:, i * P + j].reshape(h, w)
            cnt[i:i + h, j:j + w] += 1.0
    return acc / cnt


def masked_omp(Y, M, dc, D, max_atoms, tol2):
    """Codes each row of Y (centred values, 0 at the missing pixels) on the atoms D (K×n)
    restricted to the row's observed pixels M, and returns every patch rebuilt in full.

    Every code holds a constant atom from the start (its coefficient corrects the DC jointly
    with the other atoms). Greedy: the atom of D most correlated with the residual, each atom
    renormalised on the observed pixels, joins; all coefficients are refitted by least squares
    on the observed pixels. A row stops at max_atoms atoms of D, at |observed| - 1 of them, or
    when its squared residual is at most tol2 · |observed|."""
    N, n = Y.shape
    K = D.shape[0]
    Dt = np.hstack([D.T, np.full((n, 1), 1.0 / math.sqrt(n))])  # n×(K+1), the constant last
    Dt2 = D.T * D.T
    width = max_atoms + 1
    out = np.empty_like(Y)
    for s0 in range(0, N, BLOCK):
        y, m = Y[s0:s0 + BLOCK], M[s0:s0 + BLOCK]
        b = y.shape[0]
        nobs = m.sum(axis=1)
        limit = np.minimum(max_atoms, np.maximum(nobs - 1, 0)).astype(np.int64) + 1
        floor = np.maximum(tol2, 1e-12) * nobs  # 1e-12: a residual of zero ends the row
        norms = np.sqrt(m @ Dt2)
        inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 1e-9)
        chosen = np.full((b, width), K, dtype=np.int64)
        coef = np.zeros((b, width))
        used = np.ones(b, dtype=np.int64)
        # Y is centred on the observed pixels, so the constant atom alone leaves Y as residual.
        resid = y.copy()
        active = np.flatnonzero((limit > 1) & ((resid * resid).sum(axis=1) > floor))
        t = 1
        while active.size:
            corr = np.abs(resid[active] @ Dt[:, :K]) * inv[active]
            if t > 1:
                np.put_along_axis(corr, chosen[active, 1:t], -1.0, axis=1)
            chosen[active, t] = corr.argmax(axis=1)
            t += 1
            A = Dt[:, chosen[active, :t]].transpose(1, 0, 2) * m[active][:, :, None]  # a×n×t
            G = np.einsum("ank,anl->akl", A, A)
            G += 1e-10 * np.eye(t)[None]
            rhs = np.einsum("ank,an->ak", A, y[active])
            c = np.linalg.solve(G, rhs[:, :, None])[:, :, 0]
            coef[active, :t] = c
            used[active] = t
            resid[active] = y[active] - np.einsum("ank,ak->an", A, c)
            go = (t < limit[active]) & ((resid[active] ** 2).sum(axis=1) > floor[active])
            active = active[go]
        rebuilt = np.zeros_like(y)
        for k in range(2, width + 1):
            rows = np.flatnonzero(used == k)
            if rows.size:
                A = Dt[:, chosen[rows, :k]].transpose(1, 0, 2)
                rebuilt[rows] = np.einsum("ank,ak->an", A, coef[rows, :k])
        out[s0:s0 + BLOCK] = rebuilt + dc[s0:s0 + BLOCK, None]
    return out


def inpaint(observed, mask, noise, args):
    """The reconstruction (0-255 scale, unclipped) and per-round notes."""
    shape = observed.shape
    y = observed / 255.0
    Yp = patches(y).copy()
    Mp = patches(mask).astype(np.float64)
    nobs = Mp.sum(axis=1)
    # A patch with no observed pixel has no DC of its own: it takes the image's.
    global_dc = y[mask].mean()
    dc = np.where(nobs > 0, (Yp * Mp).sum(axis=1) / np.maximum(nobs, 1), global_dc)
    Yc = (Yp - dc[:, None]) * Mp
    sigma = noise / 255.0
    if noise > 0:
        max_atoms, tol2 = args.sparsity_noisy, (NOISE_GAIN * sigma) ** 2
    else:
        max_atoms, tol2 = args.sparsity, 0.0

    rng = np.random.default_rng(args.seed)
    n_train = min(args.train_patches, Yp.shape[0])
    D = None
    # The first fill: each missing pixel takes the mean DC of the patches that cover it.
    estimate = average_patches(np.repeat(dc[:, None], P * P, axis=1), shape)
    notes = []
    for rnd in range(args.rounds):
        t0 = time.perf_counter()
        pick = np.sort(rng.choice(Yp.shape[0], size=n_train, replace=False))
        X = patches(np.where(mask, y, estimate))[pick]
        X = X - X.mean(axis=1, keepdims=True)
        dl = MiniBatchDictionaryLearning(
            n_components=args.atoms, alpha=args.alpha, max_iter=args.dl_epochs,
            batch_size=args.batch_size, fit_algorithm="lars", shuffle=True,
            dict_init=D, random_state=int(rng.integers(2**31 - 1)))
        with warnings.catch_warnings():
            # LARS drops degenerate regressors (atoms that coincide): expected, not a failure.
            warnings.simplefilter("ignore", ConvergenceWarning)
            dl.fit(X)
        D = dl.components_.copy()
        norms = np.linalg.norm(D, axis=1)
        D = D / np.where(norms > 0, norms, 1.0)[:, None]
        t1 = time.perf_counter()
        rebuilt = masked_omp(Yc, Mp, dc, D, max_atoms, tol2)
        t2 = time.perf_counter()
        estimate = average_patches(rebuilt, shape)
        if noise == 0:
            estimate = np.where(mask, y, estimate)
        notes.append({"round": rnd + 1, "dl_seconds": t1 - t0, "omp_seconds": t2 - t1,
                      "dl_steps": int(dl.n_steps_)})
        if args.verbose:
            print(f"round {rnd + 1}: dictionary {t1 - t0:.1f} s ({dl.n_steps_} minibatches), "
                  f"coding {t2 - t1:.1f} s", flush=True)
            if args.original_for_progress is not None:
                rec = np.clip(estimate * 255.0, 0, 255)
                print(f"    PSNR {psnr(args.original_for_progress, rec):.2f} dB", flush=True)
    return estimate * 255.0, notes


def psnr(reference, estimate, where=None):
    d = reference - estimate
    if where is not None:
        d = d[where]
        if d.size == 0:
            return float("nan")
    mse = float(np.mean(d * d))
    return float("inf") if mse == 0 else 20.0 * math.log10(255.0 / math.sqrt(mse))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--original", required=True, help="the clean image, for scoring")
    ap.add_argument("--run", help="a folder written by svi run: observed.png, mask.png")
    ap.add_argument("--missing", type=float, help="fraction of pixels removed (own corruption)")
    ap.add_argument("--noise", type=float, help="noise σ on the 0-255 scale")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--atoms", type=int, default=256, help="dictionary size K")
    ap.add_argument("--rounds", type=int, default=6, help="EM rounds (learn, code, refill)")
    ap.add_argument("--sparsity", type=int, default=3, help="atoms per patch without noise")
    ap.add_argument("--sparsity-noisy", type=int, default=12,
                    help="most atoms per patch with noise (the residual tolerance stops first)")
    ap.add_argument("--alpha", type=float, default=0.5, help="sklearn's l1 weight in learning")
    ap.add_argument("--batch-size", type=int, default=256, help="sklearn's minibatch")
    ap.add_argument("--dl-epochs", type=int, default=1,
                    help="sklearn's max_iter: passes over the training subset each round")
    ap.add_argument("--train-patches", type=int, default=20000,
                    help="patches drawn afresh each round to learn the dictionary")
    ap.add_argument("--json", help="write the scores and settings here")
    ap.add_argument("--save", help="write the reconstruction here (8-bit PNG)")
    ap.add_argument("--verbose", action="store_true", help="per-round times and PSNR")
    args = ap.parse_args()

    try:
        original = load_grey(args.original)
        run = read_run(args.run) if args.run else None
    except OSError as e:
        sys.exit(f"cannot read the image: {e}")
    if run:
        observed, mask, run_noise = run
        noise = args.noise if args.noise is not None else (run_noise or 0.0)
        task = f"svi run {args.run}"
    else:
        if args.missing is None or args.noise is None:
            ap.error("give --run DIR, or --missing F and --noise S (and --seed N)")
        noise = args.noise
        observed, mask = corrupt(original, args.missing, noise, args.seed)
        task = "own corruption"
    if observed.shape != original.shape:
        sys.exit(f"the task is {observed.shape[1]}×{observed.shape[0]}, the original "
                 f"{original.shape[1]}×{original.shape[0]}")
    if min(original.shape) < P:
        sys.exit(f"the image is smaller than a {P}×{P} patch")
    args.original_for_progress = original if args.verbose else None

    t0 = time.perf_counter()
    estimate, notes = inpaint(observed, mask, noise, args)
    seconds = time.perf_counter() - t0
    rec = np.clip(estimate, 0.0, 255.0)
    result = {
        "tool": f"scikit-learn {sklearn.__version__} MiniBatchDictionaryLearning + masked OMP",
        "image": args.original, "width": original.shape[1], "height": original.shape[0],
        "task": task, "missing": float(1.0 - mask.mean()), "noise": noise, "seed": args.seed,
        "psnr": psnr(original, rec), "psnr_missing": psnr(original, rec, ~mask),
        "seconds": seconds,
        "settings": {"patch": P, "atoms": args.atoms, "rounds": args.rounds,
                     "sparsity": args.sparsity, "sparsity_noisy": args.sparsity_noisy,
                     "noise_gain": NOISE_GAIN, "alpha": args.alpha,
                     "batch_size": args.batch_size, "dl_epochs": args.dl_epochs,
                     "train_patches": args.train_patches, "fit_algorithm": "lars"},
        "rounds": notes,
    }
    print(f"{os.path.basename(args.original)}  {original.shape[1]}×{original.shape[0]}  "
          f"missing {result['missing']:.3f}  σ {noise:g}  PSNR {result['psnr']:.2f} dB  "
          f"missing pixels {result['psnr_missing']:.2f} dB  {seconds:.1f} s", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
    if args.save:
        Image.fromarray(np.rint(rec).astype(np.uint8), mode="L").save(args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
