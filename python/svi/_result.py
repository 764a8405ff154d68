"""A run's results, from a run just made or from a run folder read back."""

import csv
import json
import os

import numpy as np

from . import _svi


def _frame(columns):
    """The trace as a pandas DataFrame when pandas is installed, else the dict of columns."""
    try:
        import pandas
    except ImportError:
        return columns
    return pandas.DataFrame(columns)


class Run:
    """One run's results.

    trace: the snapshots as columns (step, epochs, train_seconds, wall_seconds, rho, elbo and
        each metric), a pandas DataFrame when pandas is installed, else a dict of numpy arrays.
    summary: summary.json's object (model, algorithm, steps, termination, the final metrics, ...).
    metrics: the final snapshot's metrics (summary["metrics"]).
    outputs: the fit as numpy: image (the reconstruction), original, observed, mask, atoms and
        atom_weights, topics (index, weight, words, probs), user_factors and item_factors,
        weight_names, weight_mean and weight_sd, communities and link_probability, covariances —
        whichever the model publishes.
    description: run.json's object (the run resolved: every setting and parameter).
    folder: where it was written (out=), else None. interrupted: stopped by Ctrl-C.
    """

    def __init__(self, result):
        self.summary = result["summary"]
        self.description = result["run"]
        self.outputs = result["outputs"]
        self.folder = result.get("folder")
        self.interrupted = bool(result.get("interrupted", False))
        self.data_summary = result.get("data_summary", "")
        self.trace_columns = result["trace"]
        self.trace = _frame(self.trace_columns)

    @property
    def metrics(self):
        return dict(self.summary.get("metrics", {}))

    @property
    def model(self):
        return self.summary.get("model", "")

    @property
    def algorithm(self):
        return self.summary.get("algorithm", "")

    @property
    def termination(self):
        return self.summary.get("termination", "")

    @property
    def topics(self):
        return self.outputs.get("topics", [])

    @property
    def image(self):
        return self.outputs.get("image")

    def __repr__(self):
        shown = ", ".join(f"{k} {v:.4g}" for k, v in list(self.metrics.items())[:3]
                          if isinstance(v, (int, float)))
        return (f"<svi.Run {self.model}/{self.algorithm}: {self.summary.get('steps', 0)} steps, "
                f"{self.termination}; {shown}>")


def _read_table(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t" if path.endswith(".tsv") else ","))
    try:
        import pandas
        return pandas.DataFrame(rows[1:], columns=rows[0]).apply(pandas.to_numeric, errors="ignore")
    except ImportError:
        return rows


def _topics(path):
    """topics.csv (topic, weight, rank, word, probability rows) as the topics of a live run."""
    by_topic = {}
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        for row in reader:
            t = by_topic.setdefault(int(row["topic"]), {"index": int(row["topic"]) - 1,
                                                        "weight": float(row["weight"]),
                                                        "words": [], "probs": []})
            t["words"].append(row["word"])
            t["probs"].append(float(row["probability"]))
    topics = list(by_topic.values())
    for t in topics:
        t["probs"] = np.array(t["probs"])
    return topics


def load_run(folder):
    """A run folder (written by svi.run(out=...), ``svi run --out`` or the window's Save Run)
    read back as a Run, or a compare folder (``svi compare --out``, svi.compare(out=...)) as a
    list of Runs. The trace is read by the same reader as the window's; the outputs are the
    folder's files: images as arrays, topics as a live run's, tables as DataFrames (pandas) or
    rows."""
    folder = os.fspath(folder)
    if not os.path.exists(os.path.join(folder, "trace.csv")):
        runs = _svi.compare_folder_runs(folder)
        if runs:
            return [load_run(r) for r in runs]
    read = _svi.read_run_folder(folder)

    def load(name):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            return {}
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    summary = load("summary.json")
    summary.setdefault("model", read["model"])
    summary.setdefault("algorithm", read["algorithm"])
    summary.setdefault("termination", read["termination"])
    outputs = {}
    images = {"reconstruction.png": "image", "observed.png": "observed", "mask.png": "mask"}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name in images:
            outputs[images[name]] = _svi.read_image(path)
        elif name == "topics.csv":
            outputs["topics"] = _topics(path)
        elif name.endswith((".csv", ".tsv")) and name != "trace.csv":
            outputs[os.path.splitext(name)[0]] = _read_table(path)
    if "mask" in outputs:
        outputs["mask"] = outputs["mask"] > 127
    return Run({"summary": summary, "run": load("run.json"), "outputs": outputs,
                "folder": folder, "trace": read["trace"],
                "interrupted": summary.get("termination") == "cancelled"})
