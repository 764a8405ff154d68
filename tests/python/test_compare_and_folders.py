"""svi.compare and run folders read back: the same folders and tables as svi compare, read by
the same readers as the window's."""

import os

import numpy as np
import pytest

import svi
from conftest import read_json, run_cli


def test_compare_gives_the_results_table(documents, tmp_path):
    out = str(tmp_path / "cmp")
    c = svi.compare(documents, model="lda", algorithms=["svi", "mimno-svi"], repeats=2, steps=15,
                    K=3, threads=1, out=out)
    assert len(c.runs) == 4 and not c.interrupted
    rows = c.results["rows"]
    assert [r["algorithm"] for r in rows] == ["svi", "mimno-svi"]
    # The table's mean is the runs' mean.
    svi_runs = [r.metrics["perplexity"] for r in c.runs if r.algorithm == "svi"]
    assert rows[0]["summary"]["perplexity"]["mean"] == pytest.approx(np.mean(svi_runs), rel=1e-12)
    # Seeds seed, seed + 1 for the repeats.
    assert sorted(r.description["seed"] for r in c.runs if r.algorithm == "svi") == [1, 2]
    assert read_json(os.path.join(out, "results.json"))["rows"][0]["algorithm"] == "svi"
    runs = svi.load_run(out)
    assert len(runs) == 4 and runs[0].metrics == c.runs[0].metrics


def test_compare_types_a_parameter_of_one_algorithm(documents):
    c = svi.compare(documents, model="lda", algorithms=["svi", "mimno-svi"], steps=3, K=2,
                    samples=2, threads=1)
    assert c.runs[1].description["params"]["samples"] == 2


def test_a_folder_reads_back_as_the_run(documents, tmp_path, svi_bin):
    out = str(tmp_path / "run")
    run = svi.run(documents, model="lda", steps=20, K=3, threads=1, out=out)
    back = svi.load_run(out)
    assert back.metrics == run.metrics and back.summary["steps"] == 20
    assert list(back.trace_columns["step"]) == list(run.trace_columns["step"])
    assert np.allclose(back.trace_columns["perplexity"], run.trace_columns["perplexity"], rtol=1e-6)
    assert [t["words"] for t in back.topics] == [t["words"] for t in run.topics]
    assert [t["index"] for t in back.topics] == [t["index"] for t in run.topics]
    # The folder is the one svi plot reads.
    status, err = run_cli(svi_bin, "plot", out, "--out", str(tmp_path / "p.png"))
    assert status == 0, err


def test_an_image_runs_folder_holds_its_images(tmp_path):
    image = (np.random.RandomState(1).rand(40, 40) * 255).astype(np.uint8)
    out = str(tmp_path / "img")
    run = svi.run(image, model="bpfa", algorithm="mf-svi", steps=3, K=4, threads=1, out=out)
    back = svi.load_run(out)
    assert np.array_equal(back.outputs["mask"], run.outputs["mask"])
    assert np.allclose(back.outputs["image"], np.clip(np.round(run.outputs["image"]), 0, 255))
