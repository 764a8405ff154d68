"""SVI Workbench from Python: the same models, algorithms, data readers and run folders as the
window and the ``svi`` command.

    import svi
    run = svi.run(docs, model="lda", steps=300, K=20, seed=1)
    for t in run.topics[:5]:
        print(t["words"][:8])

Everything a run takes is declared once in the library: ``svi.models()``,
``svi.algorithms(model)``, ``svi.data_kinds()`` and ``svi.help(...)`` list the models, their
algorithms' parameters with help, defaults and ranges, the data kinds' settings and the metrics
with their units and directions. A keyword argument of ``run`` is a run setting (``seed``,
``steps``, ``seconds``, ``threads``, ...), a setting of the data's kind (``missing``,
``heldout``, ...) or a parameter of the algorithm (``K``, ``kappa``, ...).
"""

import functools
import os
import tempfile

from . import _data, _svi
from ._result import Run, load_run

__version__ = _svi.__version__

__all__ = ["models", "algorithms", "data_kinds", "run_settings", "presets", "samples", "sample",
           "help", "help_text", "run", "compare", "describe", "load_run", "read_image", "tokenize", "Run", "Comparison",
           "__version__"]


def _entries():
    return _svi.registry()


def models():
    """The models, as dicts: key, label, data_kinds, default_algorithm, algorithms (keys)."""
    out = {}
    for e in _entries():
        m = out.setdefault(e["model"], {"key": e["model"], "label": e["model_label"],
                                        "data_kinds": [], "default_algorithm": None,
                                        "algorithms": []})
        m["algorithms"].append(e["algorithm"])
        for k in e["data_kinds"]:
            if k not in m["data_kinds"]:
                m["data_kinds"].append(k)
        if e["default"]:
            m["default_algorithm"] = e["algorithm"]
    return list(out.values())


def algorithms(model):
    """The algorithms of `model`, as dicts: algorithm, label, help, bound, default,
    compare_rank, data_kinds, params (key, label, help, type, default, min, max, choices) and
    metrics (key, label, unit, direction, compared, headline)."""
    found = [e for e in _entries() if e["model"] == model]
    if not found:
        raise ValueError(f"model = {model}, but must be one of: " + ", ".join(m["key"] for m in models()))
    return found


def data_kinds():
    """The data kinds, as dicts: key, label, task, formats, default_model, settings."""
    return _svi.data_kinds()


def run_settings():
    """The run's own settings (seed, seconds, steps, wall_seconds, eval_every, ...)."""
    return _svi.run_settings()


def presets():
    """The named sets of values a run can start from (``preset=``)."""
    return _svi.presets()


def samples():
    """The small data sets embedded in the library (``svi.run(svi.sample("austen"))``)."""
    return _svi.samples()


def sample(key):
    """The files of the embedded sample `key`, as a list of paths to give to run()."""
    for s in samples():
        if s["key"] == key:
            return s["files"]
    raise ValueError(f"sample = {key}, but must be one of: " + ", ".join(s["key"] for s in samples()))


def tokenize(text, **settings):
    """The words of `text` (str or bytes) as the corpus kind reads raw text files: Unicode
    letters, lowercased, words shorter than 2 letters and English stop words dropped, by
    default; the settings lowercase, min_length, stop_words, strip_headers and keep_subject
    (svi.data_kinds()) change that."""
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    return _svi.tokenize(data, _values(settings))


def read_image(path):
    """An image file as the image kind reads it: grey levels 0-255 (float32, height x width);
    colour is converted to grey (BT.601), 16-bit grey scaled to 0-255."""
    return _svi.read_image(os.fspath(path))


def _range(p):
    if "choices" in p:
        return " | ".join(p["choices"])
    if p["type"] == "bool":
        return "True | False"
    if "min" in p:
        hi = "inf" if p.get("max") is None else f"{p['max']:g}"
        lo = "(" if p.get("min_exclusive") else "["
        return f"{lo}{p['min']:g}, {hi}" + (")" if p.get("max") is None else "]")
    return "text"


def _param_lines(params):
    lines = []
    for p in params:
        setting = f"{p['key']} = {p['default']}"
        lines.append(f"    {setting:<26} {_range(p):<18} {p['help']}")
    return lines


def help(model=None, algorithm=None):  # noqa: A001 (the module's help, as svi help)
    """Prints help_text(model, algorithm)."""
    print(help_text(model, algorithm))


def help_text(model=None, algorithm=None):
    """Help from the declarations: the models, data kinds and run settings (no argument), a
    model's algorithms with their parameters (default, range, help) and metrics (unit,
    direction), or one algorithm's."""
    lines = []
    if model is None:
        for m in models():
            lines.append(f"{m['key']:<8} {m['label']} (data: {', '.join(m['data_kinds'])}; "
                         f"algorithms: {', '.join(m['algorithms'])}; default {m['default_algorithm']})")
        lines.append("")
        lines.append("data kinds and their settings (keyword arguments of svi.run):")
        for k in data_kinds():
            lines.append(f"  {k['key']}: {k['task']}")
            lines += _param_lines(k["settings"])
        lines.append("run settings:")
        lines += _param_lines(run_settings())
    else:
        for e in algorithms(model):
            if algorithm and e["algorithm"] != algorithm:
                continue
            lines.append(f"{model} / {e['algorithm']} — {e['label']}{' (default)' if e['default'] else ''}: {e['help']}")
            lines.append(f"  ELBO: {e['bound']}")
            lines.append("  parameters:")
            lines += _param_lines(e["params"])
            lines.append("  metrics: " + ", ".join(
                f"{x['key']} ({x['unit'] + ', ' if x['unit'] else ''}{x['direction']} is better)" for x in e["metrics"]))
            lines.append("")
        if algorithm and len(lines) == 0:
            raise ValueError(f"algorithm = {algorithm}, but must be one of: " +
                             ", ".join(e["algorithm"] for e in algorithms(model)))
    return "\n".join(lines)


def _text(value):
    """A keyword's value as svi run --set takes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    if hasattr(value, "item") and callable(value.item):  # a numpy scalar
        return _text(value.item())
    return str(value)


@functools.lru_cache(maxsize=None)
def _kind_keys():
    """The data kinds' keys (fixed for the process)."""
    return tuple(k["key"] for k in _svi.data_kinds())


class _Data:
    """The files of `data` (written from memory when it is not files), for one call."""

    def __init__(self, data, kind, out, vocabulary, label):
        self._temporary = None
        self.written = ""  # the folder of the files written from memory
        self.kind = kind or ""
        if self.kind and self.kind not in _kind_keys():
            raise ValueError(f"kind = {self.kind}, but must be one of: " + ", ".join(_kind_keys()))
        if data is None:
            self.files = []
        elif not _data.is_in_memory(data):
            self.files = [os.fspath(data)] if isinstance(data, (str, os.PathLike)) else [os.fspath(d) for d in data]
        else:
            if out:
                folder = os.path.abspath(os.path.join(out, "data"))
            else:
                self._temporary = tempfile.TemporaryDirectory(prefix="svi-data-")
                folder = os.path.abspath(self._temporary.name)
            self.files, self.kind = _data.write(data, kind, folder, _svi.write_image, vocabulary, label)
            self.written = folder

    def explain(self, error):
        """`error` as about the data given when it names a file written from memory."""
        if not self.written:
            return error
        return ValueError(_data.explain(str(error), self.written))

    def close(self):
        if self._temporary is not None:
            self._temporary.cleanup()


def _values(params):
    return [(k, _text(v)) for k, v in params.items()]


def _with_data(data, kind, out, force, vocabulary, label, call):
    """call(files, kind) on the files of `data` (written from memory when it is not files), with
    the output folder `out` claimed as `svi run --out` claims it (refused when it holds another
    run, unless `force`); a reader's error about a file written from memory names the data given."""
    claim = None
    if out:
        claim = _svi.OutputFolder(os.fspath(out), force)
        claim.start_writing()
    d = _Data(data, kind, out, vocabulary, label)
    try:
        return call(d.files, d.kind)
    except ValueError as e:
        raise d.explain(e) from None
    finally:
        d.close()
        del claim


def run(data=None, model="", algorithm="", *, kind="", preset="", out=None, force=False,
        callback=None, vocabulary=None, label=None, **params):
    """Fits `model` by `algorithm` to `data` and returns a Run.

    data: a file or folder (any kind ``svi run`` reads, recognised by content), a list of them,
        or data in memory (see svi._data: arrays, DataFrames, sparse matrices, token lists, edge
        lists); None: the embedded default image.
    model, algorithm: registry keys (svi.models(), svi.algorithms(model)); empty: the data
        kind's default model and the model's default algorithm.
    kind: the data kind when the content does not say it (e.g. "ratings" for a sparse matrix).
    preset: a named set of values to start from (svi.presets()).
    out: a folder to write the run into, as ``svi run --out`` does (run.json, trace.csv,
        summary.json, the outputs' files); force: replace an earlier run's folder there.
    callback: called after each snapshot with (snapshot, outputs) on the calling thread (a
        notebook's live plot); returning False stops the run.
    **params: run settings (seed, steps, seconds, threads, ...), data settings (missing,
        heldout, ...) and the algorithm's parameters (K, kappa, ...). Without steps, seconds or
        wall_seconds a run has 60 training seconds.

    Errors in the data or the parameters raise ValueError naming the file or the key. Ctrl-C
    stops the run at its next step and returns what it has (run.interrupted is True); a second
    Ctrl-C also skips the final evaluation.
    """
    return Run(_with_data(data, kind, out, force, vocabulary, label, lambda files, k: _svi.run(
        files, k, model, algorithm, preset, _values(params), os.fspath(out) if out else "",
        callback)))


class Comparison:
    """A comparison's results: table (a DataFrame when pandas is installed, else a list of
    dicts: one row per algorithm with each metric's mean and sd), results (results.json's
    object), runs (a Run each) and interrupted."""

    def __init__(self, result):
        self.results = result["results"]
        self.runs = [Run(r) for r in result["runs"]]
        self.interrupted = result["interrupted"]
        rows = []
        for row in self.results["rows"]:
            r = {"model": row["model"], "algorithm": row["algorithm"], "label": row["label"],
                 "runs": row["runs"]}
            for key, m in row["summary"].items():
                if key != "steps":
                    r[key] = m["mean"]
                    r[key + "_sd"] = m["sd"]
            rows.append(r)
        self.table = rows
        try:
            import pandas
            self.table = pandas.DataFrame(rows)
        except ImportError:
            pass

    def __repr__(self):
        return f"<svi.Comparison of {len(self.runs)} runs>\n{self.table}"


def compare(data=None, model="", algorithms=(), *, kind="", preset="", repeats=1,
            baselines=False, out=None, force=False, callback=None, vocabulary=None, label=None,
            **params):
    """Runs several algorithms on the same data, split, budget and seeds, as ``svi compare``:
    `algorithms` ("a" or "model/a"; empty: the model's comparison group, with the algorithms
    outside it when `baselines`), each `repeats` times with seeds seed, seed + 1, ... Returns a
    Comparison; with `out`, writes the run folders and results.csv/json/tex there."""
    picks = [algorithms] if isinstance(algorithms, str) else list(algorithms)
    return Comparison(_with_data(data, kind, out, force, vocabulary, label, lambda files, k: _svi.compare(
        files, k, model, preset, _values(params), picks, bool(baselines), int(repeats),
        os.fspath(out) if out else "", callback)))


def describe(data=None, model="", algorithm="", *, kind="", preset="", vocabulary=None,
             label=None, **params):
    """The run that run() would make of the same arguments, resolved (run.json's object: every
    setting and parameter with its value), and a line on the data; nothing is run."""
    return _with_data(data, kind, None, False, vocabulary, label, lambda files, k: _svi.describe(
        files, k, model, algorithm, preset, _values(params)))
