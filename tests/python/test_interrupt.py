"""Ctrl-C (KeyboardInterrupt) ends a run cleanly and returns what it has; the GIL is released
while a run works."""

import os
import signal
import threading
import time

import svi


def test_ctrl_c_stops_the_run_and_returns_its_results(documents):
    timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    run = svi.run(documents * 20, model="lda", seconds=60, K=5, threads=1)
    elapsed = time.monotonic() - started
    timer.cancel()
    assert run.interrupted and run.termination == "cancelled"
    assert elapsed < 30
    assert run.summary["steps"] > 0
    assert run.summary["final_evaluation"] == "full"  # the first Ctrl-C keeps the final evaluation
    assert "perplexity" in run.metrics


def test_other_threads_run_while_a_run_works(documents):
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    t = threading.Thread(target=tick)
    t.start()
    svi.run(documents * 10, model="lda", seconds=1.5, K=5, threads=1)
    stop.set()
    t.join()
    # A thread holding the GIL for the run would have let the ticker run only between snapshots.
    assert len(ticks) > 60
