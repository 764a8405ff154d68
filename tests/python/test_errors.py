"""Bad input raises ValueError with the message svi prints, naming the key, file or field; the
module stays usable after it."""

import os

import numpy as np
import pytest

import svi
from conftest import run_cli


def test_a_parameter_out_of_range_names_the_key(svi_bin, documents, tmp_path):
    with pytest.raises(ValueError) as e:
        svi.run(documents, model="lda", K=0, steps=1)
    assert str(e.value) == "K = 0, but must be in [1, 100000]"
    # svi run says the same of the same value, naming its flag.
    status, err = run_cli(svi_bin, "run", "--sample", "austen", "--model", "lda", "--set", "K=0",
                          "--steps", "1", "--out", str(tmp_path / "x"))
    assert status == 2 and "--set K = 0, but must be in [1, 100000]" in err


def test_a_wrong_type_and_an_unknown_key(documents):
    with pytest.raises(ValueError, match=r"^kappa = fast, but must be a number$"):
        svi.run(documents, model="lda", kappa="fast", steps=1)
    with pytest.raises(ValueError, match=r"^Kx: not a parameter of lda svi \(K, minibatch, .*\), nor a setting of Corpus data \(heldout, .*\) or of the run \(seed, "):
        svi.run(documents, model="lda", Kx=3, steps=1)
    with pytest.raises(ValueError, match=r"missing = 1.5, but must be in \[0, 0.99\]"):
        svi.run(np.zeros((32, 32), np.uint8), missing=1.5, steps=1)


def test_unknown_model_algorithm_and_kind(documents):
    with pytest.raises(ValueError, match="model"):
        svi.run(documents, model="nope", steps=1)
    with pytest.raises(ValueError, match="algorithm"):
        svi.run(documents, model="lda", algorithm="nope", steps=1)
    with pytest.raises(ValueError, match="kind = nope, but must be one of"):
        svi.run(documents, kind="nope", steps=1)


def test_files_that_cannot_be_read_are_named(tmp_path):
    with pytest.raises(ValueError, match="cannot read '.*nowhere.png': file does not exist"):
        svi.run(str(tmp_path / "nowhere.png"), steps=1)
    bad = tmp_path / "bad.ldac"
    bad.write_text("2 0:1 1:1\n3 0:1\n")
    with pytest.raises(ValueError, match="bad.ldac"):
        svi.run(str(bad), model="lda", steps=1)


def test_bad_data_in_memory():
    with pytest.raises(ValueError, match="NaN"):
        svi.run(np.full((32, 32), np.nan), kind="image", steps=1)
    with pytest.raises(ValueError, match="shape"):
        svi.run(np.zeros((4, 4, 4, 4)), kind="image", steps=1)
    with pytest.raises(ValueError, match="document 1 is a string"):
        svi.run([["a", "b"], "c d"], steps=1)
    with pytest.raises(ValueError, match="no token"):
        svi.run([[], []], steps=1)
    with pytest.raises(ValueError, match="sparse matrix is a corpus"):
        sparse = pytest.importorskip("scipy.sparse")
        svi.run(sparse.csr_matrix(np.ones((3, 3))), steps=1)


def test_a_bad_value_in_an_array_names_its_row():
    table = np.random.RandomState(0).rand(20, 4)
    table[3, 2] = np.inf
    with pytest.raises(ValueError) as e:
        svi.run(table, model="bpfa", algorithm="mf-svi", steps=1)
    # The row of the array (not the line of the file it was written to) and the column.
    assert str(e.value).startswith("cannot read the data given (table.csv) row 3 (0-based), "
                                   "column 3 ('x3'): 'inf' is not a finite number"), str(e.value)


def test_an_empty_table_and_the_module_goes_on(documents):
    with pytest.raises(ValueError):
        svi.run(np.zeros((0, 3)), steps=1)
    assert svi.run(documents, model="lda", steps=2, K=2, threads=1).summary["steps"] == 2


def test_a_callback_that_raises_ends_the_run_and_raises(documents):
    def fail(snapshot, outputs):
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        svi.run(documents, model="lda", steps=200, eval_every_steps=5, K=2, callback=fail)


def test_an_output_folder_of_another_run_is_refused(documents, tmp_path):
    out = str(tmp_path / "run")
    svi.run(documents, model="lda", steps=2, K=2, out=out)
    with pytest.raises(ValueError, match="force=True"):
        svi.run(documents, model="lda", steps=3, K=3, out=out)
    svi.run(documents, model="lda", steps=3, K=3, out=out, force=True)
    assert os.path.exists(os.path.join(out, "summary.json"))
