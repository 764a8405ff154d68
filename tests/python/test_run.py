"""svi.run: the same numbers as `svi run` for the same data, seed and threads, to the bit; data
from memory as from files; the outputs as numpy."""

import csv
import os

import numpy as np
import pytest

import svi
from conftest import read_json, run_cli

# Snapshot columns that depend on the clock, not on the arithmetic.
CLOCK = {"train_seconds", "wall_seconds", "seconds_per_step"}


def trace_rows(folder):
    with open(os.path.join(folder, "trace.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return [{k: v for k, v in r.items() if k not in CLOCK} for r in rows]


def assert_same_run(a, b):
    """Two run folders of the same run: the same trace and final figures, bit for bit."""
    sa, sb = read_json(os.path.join(a, "summary.json")), read_json(os.path.join(b, "summary.json"))
    assert sa["metrics"] == sb["metrics"]
    assert sa["elbo"] == sb["elbo"] and sa["steps"] == sb["steps"]
    assert trace_rows(a) == trace_rows(b)


def write_ldac(docs, folder):
    os.makedirs(folder)
    ids = {}
    with open(os.path.join(folder, "docs.ldac"), "w") as f:
        for doc in docs:
            counts = {}
            for w in doc:
                i = ids.setdefault(w, len(ids))
                counts[i] = counts.get(i, 0) + 1
            f.write(f"{len(counts)} " + " ".join(f"{i}:{c}" for i, c in sorted(counts.items())) + "\n")
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("\n".join(sorted(ids, key=ids.get)) + "\n")
    return os.path.join(folder, "docs.ldac")


LDA = dict(model="lda", steps=30, seed=3, threads=1, K=4, minibatch=16)


def test_a_file_gives_the_numbers_svi_run_gives(tmp_path, svi_bin, documents):
    corpus = write_ldac(documents, str(tmp_path / "corpus"))
    status, err = run_cli(svi_bin, "run", corpus, "--model", "lda", "--steps", "30", "--seed", "3",
                          "--threads", "1", "--set", "K=4", "--set", "minibatch=16", "--quiet",
                          "--out", str(tmp_path / "cli"))
    assert status == 0, err
    run = svi.run(corpus, out=str(tmp_path / "py"), **LDA)
    assert_same_run(str(tmp_path / "cli"), str(tmp_path / "py"))
    # What the call returns is what it wrote.
    summary = read_json(str(tmp_path / "py" / "summary.json"))
    assert run.metrics["perplexity"] == summary["metrics"]["perplexity"]
    trace = run.trace_columns
    assert list(trace["step"])[-1] == 30
    assert trace["perplexity"][-1] == summary["metrics"]["perplexity"]


def test_token_lists_from_memory_reproduce_with_svi_run(tmp_path, svi_bin, documents):
    run = svi.run(documents, out=str(tmp_path / "py"), **LDA)
    assert run.termination == "budget"
    # The folder names the corpus it wrote; svi run on that description gives the same run.
    described = run.description["data"]["files"][0]
    assert described.startswith(str(tmp_path / "py" / "data"))
    status, err = run_cli(svi_bin, "run", "--config", str(tmp_path / "py" / "run.json"), "--quiet",
                          "--out", str(tmp_path / "cli"))
    assert status == 0, err
    assert_same_run(str(tmp_path / "cli"), str(tmp_path / "py"))
    # And the same as the corpus written by hand, word ids in order of first appearance.
    by_hand = svi.run(write_ldac(documents, str(tmp_path / "hand")), **LDA)
    assert by_hand.metrics == run.metrics


def test_topics_recover_the_drawn_ones(documents):
    run = svi.run(documents, model="lda", steps=200, seed=1, threads=1, K=3, minibatch=20,
                  heldout=0.1)
    topics = run.topics
    assert len(topics) == 3
    # Each topic's top words come from one of the three drawn topics.
    for t in topics:
        prefixes = {w[:3] for w in t["words"][:5]}
        assert len(prefixes) == 1, t["words"][:5]
    assert {t["words"][0][:3] for t in topics} == {"sun", "sea", "war"}
    assert all(np.all(np.diff(t["probs"]) <= 0) for t in topics)


def test_an_image_array_gives_the_numbers_of_its_file(tmp_path, svi_bin, data_dir):
    coins = os.path.join(data_dir, "coins.png")
    pixels = svi._svi.read_image(coins)
    assert pixels.shape == (303, 384)
    image = pixels.astype(np.uint8)
    assert np.array_equal(image, pixels)  # an 8-bit grey file: whole levels
    args = dict(model="bpfa", algorithm="mf-svi", steps=8, seed=2, threads=1, K=16, missing=0.5)
    run = svi.run(image, **args)
    status, err = run_cli(svi_bin, "run", coins, "--model", "bpfa", "--algorithm", "mf-svi",
                          "--steps", "8", "--seed", "2", "--threads", "1", "--set", "K=16",
                          "--missing", "0.5", "--quiet", "--out", str(tmp_path / "cli"))
    assert status == 0, err
    cli = read_json(str(tmp_path / "cli" / "summary.json"))
    assert run.metrics["psnr"] == cli["metrics"]["psnr"]
    out = run.outputs
    assert out["image"].shape == image.shape and out["image"].dtype == np.float32
    assert out["mask"].dtype == np.bool_ and 0.4 < out["mask"].mean() < 0.6
    assert np.array_equal(out["original"], pixels)
    # What the model saw: the observed pixels as they are, 0 where removed.
    assert np.array_equal(out["observed"][out["mask"]], pixels[out["mask"]])
    assert np.all(out["observed"][~out["mask"]] == 0)
    # The observed pixels are kept in the reconstruction; the removed ones are filled.
    assert np.allclose(out["image"][out["mask"]], pixels[out["mask"]], atol=0.5)
    assert out["atoms"].shape[1:] == (8, 8)


def test_a_float_image_keeps_levels_between_whole_numbers():
    ramp = np.tile(np.linspace(0.0, 255.0, 64), (64, 1))
    run = svi.run(ramp, kind="image", model="bpfa", algorithm="mf-svi", steps=2, K=4, threads=1)
    # 16-bit storage: the original read back is within 255/65535/2 of the array.
    assert np.max(np.abs(run.outputs["original"] - ramp)) < 0.002


def test_a_16_bit_colour_image_reads_as_its_8_bit_levels():
    rng = np.random.RandomState(3)
    colour = rng.randint(0, 256, size=(40, 48, 3)).astype(np.uint8)
    args = dict(model="bpfa", algorithm="mf-svi", steps=1, K=4, threads=1)
    eight = svi.run(colour, **args).outputs["original"]
    sixteen = svi.run(colour.astype(np.uint16) * 257, kind="image", **args).outputs["original"]
    assert np.array_equal(eight, sixteen)


def test_ratings_from_a_sparse_matrix():
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.RandomState(4)
    users, items = 40, 25
    dense = rng.poisson(0.8, size=(users, items)) * (rng.rand(users, items) < 0.5)
    dense[:, 0] += 1  # every user has a rating
    dense[0, :] += 1  # every item has one
    run = svi.run(sparse.csr_matrix(dense), kind="ratings", model="hpf", steps=20, seed=1,
                  threads=1, K=3)
    assert run.outputs["user_factors"].shape == (users, 3)
    assert run.outputs["item_factors"].shape == (items, 3)
    assert 0.0 <= run.metrics["precision_at_20"] <= 1.0


def test_a_sparse_corpus_with_its_vocabulary(documents):
    sparse = pytest.importorskip("scipy.sparse")
    vocab = sorted({w for d in documents for w in d})
    index = {w: i for i, w in enumerate(vocab)}
    rows, cols = [], []
    for d, doc in enumerate(documents):
        for w in doc:
            rows.append(d)
            cols.append(index[w])
    matrix = sparse.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(documents), len(vocab)))
    run = svi.run(matrix, vocabulary=vocab, model="lda", steps=5, K=3, threads=1)
    assert set(run.topics[0]["words"]) <= set(vocab)


def test_an_edge_list_and_a_table():
    a = [(i, j) for i in range(8) for j in range(i + 1, 8)]
    b = [(i, j) for i in range(8, 16) for j in range(i + 1, 16)]
    run = svi.run(a + b + [(0, 8)], model="epm", algorithm="gibbs", steps=20, seed=1, K=4)
    assert run.outputs["link_probability"].shape == (16, 16)
    assert len(run.outputs["communities"]) == 16

    table = np.random.RandomState(0).normal(size=(300, 6))
    run = svi.run(table, model="bpfa", algorithm="mf-svi", steps=10, K=4, threads=1)
    assert run.outputs["atoms"].shape == (4, 6)
    assert "heldout_loglik" in run.metrics


def test_labelled_data_as_a_pair():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(400, 3))
    y = (X @ np.array([2.0, -1.0, 0.0]) + 0.3 * rng.normal(size=400) > 0).astype(float)
    run = svi.run((X, y), model="glm", steps=200, seed=1, likelihood="logistic")
    names = run.outputs["weight_names"]
    mean = dict(zip(names, run.outputs["weight_mean"]))
    assert mean["x1"] > 0.5 and mean["x2"] < -0.2 and abs(mean["x3"]) < 0.5
    assert np.all(run.outputs["weight_sd"] > 0)


def test_the_callback_sees_each_snapshot_and_can_stop(documents):
    seen = []

    def watch(snapshot, outputs):
        seen.append((snapshot["step"], snapshot["metrics"].get("perplexity"), len(outputs.get("topics", []))))
        return snapshot["step"] < 40

    run = svi.run(documents, model="lda", steps=400, eval_every_steps=10, K=3, threads=1, callback=watch)
    steps = [s for s, _, _ in seen]
    # Every tenth step (and the first), then the final evaluation of the step the run stopped at.
    assert steps == [1, 10, 20, 30, 40, 40]
    assert run.summary["steps"] < 400 and run.termination == "cancelled"
    assert seen[-1][1] is not None and seen[-1][2] > 0


def test_trace_is_a_dataframe_when_pandas_is_installed(documents):
    pandas = pytest.importorskip("pandas")
    run = svi.run(documents, model="lda", steps=10, K=3, threads=1)
    assert isinstance(run.trace, pandas.DataFrame)
    assert list(run.trace["step"])[-1] == 10 and "perplexity" in run.trace.columns


def test_describe_resolves_without_running(documents):
    d = svi.describe(documents, model="lda", K=7)
    assert d["run"]["params"]["K"] == 7 and d["run"]["algorithm"] == "svi"
    assert d["run"]["budget"]["seconds"] == 60  # the default budget, as svi run's


def test_a_preset_sets_what_the_call_does_not():
    d = svi.describe(svi.sample("movietweetings"), preset="paper-002-fig4-6", D=20,
                     validation_fraction=0.05)
    run = d["run"]
    assert run["model"] == "gpmf" and run["params"]["D"] == 20 and run["params"]["slope"] == 100
    assert run["data"]["settings"]["test_fraction"] == 0.2
    assert run["data"]["settings"]["validation_fraction"] == 0.05


def test_tokenize_is_the_corpus_readers_tokenizer():
    text = "Don't panic: it's the Government's 2nd école!"
    assert svi.tokenize(text) == ["panic", "government", "nd", "école"]
    assert svi.tokenize(text, min_length=3) == ["panic", "government", "école"]
    assert "the" in svi.tokenize(text, stop_words=False)
    # Bytes that are not UTF-8 are read as Latin-1, as the reader reads old posts.
    assert svi.tokenize(text.encode("latin-1")) == ["panic", "government", "nd", "école"]
    with pytest.raises(ValueError, match=r"^x: not a setting of the tokenizer \(lowercase, "):
        svi.tokenize(text, x=1)
