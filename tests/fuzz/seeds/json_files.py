"""Seeds of the JSON targets: `session` (the window's session file) and `run_config` (the
`run.json` of `svi run`), written in Qt's indented JSON layout, valid and malformed."""

import json

from .common import INTRO, seed

def qt_json(value, indent=0):
    """JSON as QJsonDocument::Indented writes it: keys sorted, 4 spaces, an empty array or object
    over two lines, numbers shortest (integers without a point)."""
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        if not value:
            return "{\n" + " " * indent + "}"
        items = [pad + json.dumps(k, ensure_ascii=False) + ": " + qt_json(v, indent + 4) for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[\n" + " " * indent + "]"
        return "[\n" + ",\n".join(pad + qt_json(v, indent + 4) for v in value) + "\n" + " " * indent + "]"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def doc(value):
    return (qt_json(value) + "\n").encode("utf-8")


# The parameters `svi run` resolves (its run.json), per model and algorithm.
BPFA_GIBBS_SSVI = {"K": 4, "a": 10, "adaptive_init": 5, "b": 10, "burnin": 3, "c": 1, "d": 10, "e": 1,
                   "eval_burnin": 10, "eval_items": 1000, "eval_kept": 10, "eval_samples": 5, "f": 1,
                   "init": "random", "init_items": 2000, "init_sweeps": 20, "kappa": 0.75, "minibatch": 256,
                   "patch": 8, "samples": 3, "schedule": "robbins-monro", "tau0": 0}
LDA_SVI = {"K": 3, "adaptive_init": 5, "alpha": 0, "eta": 0.01, "eval_docs": 1000, "kappa": 0.7,
           "local_iters": 100, "local_tol": 0.001, "minibatch": 256, "schedule": "robbins-monro", "tau0": 64,
           "top_words": 10}
HPF_SVI = {"K": 2, "a": 0.3, "a_prime": 0.3, "adaptive_init": 5, "b_prime": 1, "c": 0.3, "c_prime": 0.3,
           "d_prime": 1, "eval_users": 1000, "kappa": 0.75, "local_iters": 100, "local_tol": 0.001,
           "minibatch": 100, "schedule": "robbins-monro", "tau0": 1, "top_n": 20}
GMF_BATCH = {"K": 2, "a0": 1, "b0": 1, "eval_users": 1000, "lambda_u": 10, "lambda_v": 10, "top_n": 20}

HELDOUT_TASK = {"arcsinh": 5, "channels": [], "exclude": [], "heldout": 0.1, "kind": "heldout", "split": "entries",
                "standardise": True, "subsample": 0, "tile": 0, "transpose": False}


def run_json(data, model, algorithm, params, task, seed=1, steps=2, seconds=0):
    return {"algorithm": algorithm, "budget": {"seconds": seconds, "steps": steps}, "data": data,
            "eval_every": 0, "full_every": 0, "model": model, "params": params, "seed": seed, "task": task,
            "threads": 0, "version": 1}


def make_run_config():
    t = "run_config"
    INTRO[t] = (
        "The headless tool's `run.json` (what `svi run` writes into `--out`), one per seed; the "
        "harness reads it as `svi run --config FILE` does (`parseRun`). The valid seeds are the "
        "`run.json` files that `svi run` wrote for the commands listed, with the absolute data "
        "paths replaced by bare file names (`svi run` writes what it was given); make_seeds.py "
        "writes the same JSON again (Qt's layout: keys sorted, 4-space indent).")
    def cmd(args):
        return f"`svi run {args} --out DIR`, data renamed"
    rc = lambda *a, **k: doc(run_json(*a, **k))
    image = run_json(":/images/default.png", "bpfa", "gibbs-ssvi", BPFA_GIBBS_SSVI,
                     {"kind": "inpaint", "missing": 0.8, "noise": 0})
    seed(t, "ok_image_bpfa.json", doc(image), "default image, inpainting, BPFA Gibbs-SSVI",
         cmd("--steps 2 --set K=4 --set init=random"))
    seed(t, "ok_csv_bpfa.json",
         rc("levine32_H1_sub200.csv", "bpfa", "gibbs-ssvi", BPFA_GIBBS_SSVI, HELDOUT_TASK),
         "a CSV table, held-out task, arcsinh 5",
         cmd("tests/data/levine32_H1_sub200.csv --steps 2 --set K=4 --set init=random --arcsinh 5"))
    seed(t, "ok_two_fcs_bpfa.json",
         rc(["Data23_Panel3_base_NR4_Patient9.fcs", "Data23_Panel3_base_R5_Patient15.fcs"], "bpfa", "gibbs-ssvi",
            BPFA_GIBBS_SSVI, dict(HELDOUT_TASK, heldout=0.05)),
         "two FCS files stacked (data is a list)",
         cmd("tests/data/fcs/Data23_Panel3_base_NR4_Patient9.fcs tests/data/fcs/Data23_Panel3_base_R5_Patient15.fcs "
             "--steps 2 --set K=4 --set init=random"))
    seed(t, "ok_expression_transposed.json",
         rc("ALL_exprs_head50.csv.gz", "bpfa", "gibbs-ssvi", dict(BPFA_GIBBS_SSVI, K=3),
            dict(HELDOUT_TASK, arcsinh=0, transpose=True)),
         "a gzip expression matrix, transposed",
         cmd("tests/data/ALL_exprs_head50.csv.gz --transpose --steps 2 --set K=3 --set init=random"))
    seed(t, "ok_tar_lda.json",
         rc("news_sample.tar.gz", "lda", "svi", LDA_SVI,
            {"heldout": 0.1, "kind": "completion", "max_df": 1, "max_documents": 0, "min_df": 1, "min_length": 2,
             "stop_words": True, "strip_headers": True, "subset": "", "vocabulary": "", "vocabulary_cap": 0}),
         "a tar archive of posts, LDA SVI, headers stripped",
         cmd("tests/data/text/news_sample.tar.gz --steps 2 --set K=3 --min-df 1 --strip-headers"))
    recommend = {"binarize": 0, "items": "", "kind": "recommend", "test_fraction": 0.2, "validation_fraction": 0.01}
    seed(t, "ok_ratings_hpf.json", rc("u.data", "hpf", "svi", HPF_SVI, recommend),
         "MovieLens-style ratings, HPF SVI", cmd("tests/data/ratings/ml100k_style/u.data --steps 2 --set K=2"))
    seed(t, "ok_ratings_gmf.json", rc("u.data", "gmf", "batch", GMF_BATCH, recommend),
         "the same, GMF batch", cmd("tests/data/ratings/ml100k_style/u.data --model gmf --steps 2 --set K=2"))
    seed(t, "ok_ratings_nondefault_split.json",
         rc("u.data", "hpf", "svi", HPF_SVI,
            dict(recommend, binarize=3, test_fraction=0.3, validation_fraction=0.05), steps=1),
         "ratings with test 0.3, validation 0.05, binarize 3 (keys `loadConfig` does not read back)",
         cmd("tests/data/ratings/ml100k_style/u.data --heldout 0.3 --validation 0.05 --binarize 3 --steps 1 --set K=2"))
    seed(t, "ok_synthetic.json",
         rc("synthetic", "bpfa", "gibbs-ssvi", BPFA_GIBBS_SSVI,
            dict(HELDOUT_TASK, arcsinh=0, heldout=0.075, synthetic={"cols": 6, "loading_var": 0, "rows": 60, "true_k": 3}),
            seed=7),
         "synthetic data (rows, cols, true_k)",
         "`svi run synthetic --rows 60 --cols 6 --true-k 3 --steps 2 --set K=4 --set init=random --seed 7 --out DIR`")
    seed(t, "ok_minimal.json", b'{"data": "u.data", "budget": {"seconds": 1.5}}\n',
         "only data and a time budget: model and algorithm from the data", "written for the fuzzers")
    seed(t, "ok_params_as_strings_and_bools.json",
         doc({"data": "cells.csv", "model": "bpfa", "algorithm": "mf-svi", "budget": {"steps": 3},
              "params": {"K": "8", "schedule": "adaptive", "local_tol": 0.01},
              "task": {"standardise": False, "channels": ["CD3", "CD4"], "exclude": [], "split": "rows",
                       "subsample": 100, "tile": 2}, "threads": 2, "eval_every": 0.5, "full_every": 2}),
         "parameter values as strings, a choice, channels, split by rows", "written for the fuzzers")

    def bad(name, value, what):
        data = value if isinstance(value, bytes) else doc(value)
        seed(t, name + ".json", data, what, "written for the fuzzers")

    base = run_json("u.data", "hpf", "svi", {"K": 2}, recommend)
    bad("bad_truncated", doc(image)[:300], "the image run.json cut after 300 bytes")
    bad("bad_not_an_object", b'["u.data", "hpf"]\n', "a JSON array")
    bad("bad_empty", b"", "an empty file")
    bad("bad_data_number", dict(base, data=42), "data is a number")
    bad("bad_data_list_of_numbers", dict(base, data=[1, 2]), "data is a list of numbers")
    bad("bad_model_number", dict(base, model=7), "model is a number")
    bad("bad_params_array", dict(base, params=[["K", 2]]), "params is an array")
    bad("bad_param_object_value", dict(base, params={"K": {"value": 2}}), "a parameter value that is an object")
    bad("edge_param_out_of_range", dict(base, params={"K": 0}),
        "K = 0: parseRun passes it on, `svi run` refuses it when it resolves the parameters")
    bad("edge_unknown_model", dict(base, model="nmf", algorithm="svi"),
        "model 'nmf' with an algorithm: parseRun passes it on, `svi run` refuses it")
    bad("bad_seed_negative", dict(base, seed=-1), "seed -1")
    bad("bad_seed_fraction", dict(base, seed=1.5), "seed 1.5")
    bad("bad_seconds_string", dict(base, budget={"seconds": "10"}), "budget.seconds is a string")
    bad("bad_no_budget", dict(base, budget={}), "no budget")
    bad("bad_budget_negative", dict(base, budget={"seconds": -1, "steps": 2}), "budget.seconds -1")
    bad("bad_task_kind", dict(base, task={"kind": "inpaint"}), "task inpaint for ratings")
    bad("edge_task_array", dict(base, task=[1, 2, 3]), "task is an array (read as an empty object)")
    bad("bad_split", run_json("cells.csv", "bpfa", "gibbs-ssvi", {"K": 2}, dict(HELDOUT_TASK, split="columns")),
        "split 'columns'")
    bad("bad_min_df_0", run_json("news.tar.gz", "lda", "svi", {"K": 2}, {"kind": "completion", "min_df": 0}),
        "min_df 0")
    bad("bad_max_documents_negative",
        run_json("news.tar.gz", "lda", "svi", {"K": 2}, {"kind": "completion", "max_documents": -5}),
        "max_documents -5")
    bad("bad_threads_negative", dict(base, threads=-2), "threads -2")
    bad("bad_eval_every_negative", dict(base, eval_every=-1), "eval_every -1")
    bad("bad_two_images", dict(image, data=[":/images/default.png", "x.png"]), "two images")
    # Numbers beyond the integer types they are stored in.
    bad("bad_steps_1e300", b'{"data": "u.data", "budget": {"steps": 1e300}}\n', "budget.steps 1e300 (beyond 64 bits)")
    bad("bad_seed_1e300", b'{"data": "u.data", "seed": 1e300, "budget": {"steps": 1}}\n', "seed 1e300 (beyond 64 bits)")
    bad("bad_threads_1e300", b'{"data": "u.data", "threads": 1e300, "budget": {"steps": 1}}\n', "threads 1e300 (beyond int)")
    bad("bad_subsample_1e300",
        b'{"data": "cells.csv", "task": {"subsample": 1e300}, "budget": {"steps": 1}}\n', "task.subsample 1e300 (beyond 64 bits)")


def make_session():
    t = "session"
    INTRO[t] = (
        "The window's session file (`\"format\": \"svi-workbench-session\"`, version 1), one per "
        "seed, read as File ▸ Open reads it (`readSessionFile`), written back and read again. "
        "The valid seeds follow `sessionToJson` (ui/session.cpp): the data and task of the "
        "window, then every run with its own data and task, model, algorithm, parameters, seed, "
        "budget and, when it ended, its result. Data paths are bare file names (relative to the "
        "session file) or the embedded default image, never absolute paths.")
    inpaint = {"kind": "inpaint", "missing": 0.5, "noise": 0, "patch": 8, "seed": 1}
    table = {"kind": "heldout", "channels": ["CD3", "CD4", "CD8", "CD45"], "arcsinh": 5, "standardise": True,
             "subsample": 0, "heldout": 0.1, "split": "entries", "transpose": False, "seed": 1}
    corpus = {"kind": "corpus", "heldout": 0.1, "max_documents": 0, "seed": 1,
              "tokenizer": {"keep_subject": True, "lowercase": True, "max_df": 1, "min_df": 1, "min_length": 2,
                            "stop_words": True, "strip_headers": True, "vocabulary": 0},
              "subset": "train"}
    ratings = {"kind": "ratings", "binarize": 0, "seed": 1, "split_seed": 1, "test_fraction": 0.2,
               "validation_fraction": 0.01}

    def run(data, task, model, algorithm, params, seed=1, seconds=0, steps=5, result=None):
        o = {"data": data, "task": task, "model": model, "algorithm": algorithm, "params": params, "seed": seed,
             "budget": {"seconds": seconds, "steps": steps}, "eval_every": 0.5, "full_every": 0}
        if result:
            o["result"] = result
        return o

    def session(data, task, runs):
        return {"format": "svi-workbench-session", "version": 1, "data": data, "task": task, "runs": runs}

    img = ":/images/default.png"
    done = {"termination": "step budget", "steps": 5, "metrics": {"psnr": 23.5, "heldout_ll": -3.25}}
    seed(t, "ok_image_runs.json", doc(session(img, inpaint, [
        run(img, inpaint, "bpfa", "gibbs-ssvi", BPFA_GIBBS_SSVI, result=done),
        run(img, inpaint, "bpfa", "mf-svi", {"K": 16, "patch": 8, "local_iters": 5}, seed=2, seconds=30, steps=0),
        run(img, inpaint, "bpfa", "gibbs", {"K": 8}, seed=3)])),
        "the default image, inpainting, three BPFA runs (one finished, with metrics)", "written for the fuzzers")
    seed(t, "ok_table_runs.json", doc(session("levine32_H1_sub200.csv", table, [
        run("levine32_H1_sub200.csv", table, "bpfa", "gibbs-ssvi", dict(BPFA_GIBBS_SSVI, K=8)),
        run("levine32_H1_sub200.csv", dict(table, split="rows", heldout=0.2), "bpfa", "titsias-ssvi",
            {"K": 8, "schedule": "adaptive"}, seed=4)])),
        "a CSV table, held-out task with channels and arcsinh, two BPFA runs", "written for the fuzzers")
    seed(t, "ok_two_fcs_files.json", doc(session(
        ["Data23_Panel3_base_NR4_Patient9.fcs", "Data23_Panel3_base_R5_Patient15.fcs"],
        dict(table, channels=[], subsample=200), [])),
        "two FCS files stacked, no runs yet", "written for the fuzzers")
    seed(t, "ok_corpus_runs.json", doc(session("news_sample.tar.gz", corpus, [
        run("news_sample.tar.gz", corpus, "lda", "svi", LDA_SVI,
            result={"termination": "stopped", "steps": 3, "metrics": {"perplexity": 812.5, "missing": None}}),
        run("news_sample.tar.gz", corpus, "hdp", "svi", {"K": 10, "minibatch": 4}, steps=10),
        run("news_sample.tar.gz", corpus, "lda", "batch", {"K": 3}, seed=9)])),
        "a tar archive of posts with tokenizer settings and a subset; LDA SVI, HDP SVI, LDA batch",
        "written for the fuzzers")
    ldac_task = {"kind": "corpus", "heldout": 0.25, "max_documents": 100, "seed": 3}
    seed(t, "ok_ldac_corpus.json", doc(session("ap.ldac", ldac_task, [
        run("ap.ldac", ldac_task, "lda", "svi", {"K": 20, "alpha": 0.1, "kappa": 0.5}, seed=3)])),
        "an LDA-C counts file (no tokenizer)", "written for the fuzzers")
    seed(t, "ok_ratings_runs.json", doc(session("u.data", ratings, [
        run("u.data", ratings, "hpf", "svi", HPF_SVI),
        run("u.data", ratings, "gmf", "batch", GMF_BATCH, seed=2),
        run("u.data", dict(ratings, binarize=4), "pmf", "svi", {"K": 5}, seed=3, seconds=2, steps=0)])),
        "MovieLens-style ratings: HPF SVI, GMF batch, PMF SVI (binarised)", "written for the fuzzers")
    seed(t, "ok_runs_on_other_data.json", doc(session(img, inpaint, [
        run("ratings.csv", ratings, "hpf", "batch", {"K": 3}),
        {"model": "bpfa", "algorithm": "gibbs-ssvi", "params": {}, "seed": 0, "budget": {"steps": 1}}])),
        "runs on data other than the window's, and a run without data, task and params (the "
        "window's)", "written for the fuzzers")
    seed(t, "ok_minimal.json",
         b'{"format": "svi-workbench-session", "version": 1, "data": ":/images/default.png", "task": {}, "runs": []}\n',
         "the least a session holds", "written for the fuzzers")

    good_run = run(img, inpaint, "bpfa", "gibbs-ssvi", {"K": 4})

    def bad(name, value, what, source="written for the fuzzers"):
        data = value if isinstance(value, bytes) else doc(value)
        seed(t, name + ".json", data, what, source)

    base = session(img, inpaint, [good_run])
    bad("bad_format", dict(base, format="svi-workbench"), "another format name")
    bad("bad_version_2", dict(base, version=2), "version 2")
    bad("bad_runs_object", dict(base, runs={"0": good_run}), "runs is an object")
    bad("bad_run_not_object", dict(base, runs=["bpfa"]), "a run that is a string")
    bad("bad_unknown_algorithm", dict(base, runs=[dict(good_run, model="lda", algorithm="gibbs")]),
        "lda has no gibbs")
    bad("bad_param_k_0", b'{"format": "svi-workbench-session", "version": 1, "data": ":/images/default.png",\n'
        b'                   "task": {"missing": 0.5}, "runs": [{"model": "bpfa", "algorithm": "gibbs-ssvi",\n'
        b'                   "params": {"K": 0}, "seed": 1, "budget": {"seconds": 1}}]}',
        "K = 0 (out of range)", "tests/ui/test_main_window.cpp (bad-session.json)")
    bad("bad_param_type", dict(base, runs=[dict(good_run, params={"K": "many"})]), "K 'many'")
    bad("bad_unknown_param", dict(base, runs=[dict(good_run, params={"topics": 4})]), "a parameter bpfa does not have")
    bad("bad_seed_negative", dict(base, runs=[dict(good_run, seed=-1)]), "seed -1")
    bad("bad_seed_fraction", dict(base, runs=[dict(good_run, seed=2.5)]), "seed 2.5")
    bad("bad_budget_missing", dict(base, runs=[{k: v for k, v in good_run.items() if k != "budget"}]),
        "a run without a budget")
    bad("bad_budget_zero", dict(base, runs=[dict(good_run, budget={"seconds": 0, "steps": 0})]), "a budget of 0 and 0")
    bad("bad_task_kind", dict(base, task={"kind": "heldout"}), "the held-out task for an image")
    bad("bad_task_patch", dict(base, task=dict(inpaint, patch=1)), "patch 1")
    bad("bad_split", session("cells.csv", dict(table, split="columns"), []), "split 'columns'")
    bad("bad_ratings_fraction", session("u.data", dict(ratings, test_fraction=1.5), []), "test_fraction 1.5")
    bad("bad_tokenizer", session("news_sample.tar.gz", dict(corpus, tokenizer={"min_length": 0}), []),
        "tokenizer min_length 0")
    bad("bad_data_empty_list", dict(base, data=[]), "data is an empty list")
    bad("bad_data_not_string", session(["a.fcs", 3], table, []), "data[1] is a number")
    bad("bad_image_two_files", session([img, "b.png"], inpaint, []), "two images")
    bad("bad_truncated", doc(base)[:200], "a session cut after 200 bytes")
    bad("bad_not_an_object", b"[1, 2, 3]\n", "a JSON array")
    # Numbers beyond the integer types they are stored in.
    bad("bad_seed_1e300", dict(base, runs=[dict(good_run, seed=1e300)]),
        "seed 1e300, a whole number beyond any 64-bit seed")
    bad("bad_steps_1e300", dict(base, runs=[dict(good_run, budget={"steps": 1e300})]),
        "budget.steps 1e300, beyond any 64-bit step count")
