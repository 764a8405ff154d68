"""Fixtures of the Python module's tests: the svi command beside the module (SVI_BIN), the
tests' data folder (SVI_TEST_DATA) and small data sets drawn here."""

import json
import os
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="session")
def svi_bin():
    path = os.environ.get("SVI_BIN", "")
    if not path or not os.path.exists(path):
        pytest.fail("SVI_BIN must name the svi executable (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def data_dir():
    return os.environ["SVI_TEST_DATA"]


def run_cli(svi_bin, *args):
    """Runs `svi ARGS`; returns (exit status, stderr)."""
    p = subprocess.run([svi_bin, *args], capture_output=True, text=True)
    return p.returncode, p.stderr


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def draw_documents(n_docs=80, length=60, seed=0):
    """Token lists drawn from three topics over 45 words (15 each, a little mixed)."""
    rng = np.random.RandomState(seed)
    words = [f"{t}word{i}" for t in ("sun", "sea", "war") for i in range(15)]
    docs = []
    for _ in range(n_docs):
        mix = rng.dirichlet([0.3, 0.3, 0.3])
        topics = rng.choice(3, size=length, p=mix)
        docs.append([words[15 * t + rng.randint(15)] for t in topics])
    return docs


@pytest.fixture(scope="session")
def documents():
    return draw_documents()
