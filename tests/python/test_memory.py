"""A hundred runs leave the process's memory where ten left it."""

import gc

import numpy as np

import svi


def resident_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def test_no_memory_is_kept_across_runs(documents):
    image = (np.random.RandomState(0).rand(48, 48) * 255).astype(np.uint8)

    def once():
        svi.run(documents, model="lda", steps=3, K=4, threads=1)
        svi.run(image, model="bpfa", algorithm="mf-svi", steps=2, K=4, threads=1)

    for _ in range(10):
        once()
    gc.collect()
    before = resident_mb()
    for _ in range(90):
        once()
    gc.collect()
    grown = resident_mb() - before
    assert grown < 15, f"{grown:.1f} MB more after 90 more runs"
