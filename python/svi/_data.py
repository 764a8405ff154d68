"""Data given from memory, written as files in the formats the data kinds read.

A run reads its data through the same readers as ``svi run`` and the window: an array, a
sparse matrix, token lists or an edge list are written once into a folder (the run folder's
``data/`` when ``out`` is given, so that the folder's run.json names them and ``svi run
--config`` reproduces the run; a temporary folder otherwise), in a format whose reading is
exact:

- a 2-D or 3-D ``uint8`` array (or ``kind="image"``): a PNG image (8-bit grey or RGB; an
  ``uint16`` array as 16-bit grey; a float array is taken on the 0-255 scale and stored as 16-bit
  grey, so that levels between whole numbers survive);
- any other 2-D numeric array, or a pandas DataFrame: a CSV table (``kind="labelled"`` with a
  label column for supervised models; a tuple ``(X, y)`` is such a table with ``y`` last);
- a list of token lists, or a SciPy sparse matrix of documents x words with ``vocabulary``: an
  LDA-C corpus with its vocab.txt;
- a SciPy sparse matrix with ``kind="ratings"``, or a DataFrame of user, item, rating columns:
  a ratings.csv of ``userId,movieId,rating,timestamp`` lines;
- a list of ``(source, target)`` pairs, a networkx graph, or an (E, 2) integer array with
  ``kind="graph"``: an edge list.
"""

import os
import re

import numpy as np

_TABLE_KINDS = ("table", "labelled")


def _is_sparse(data):
    return hasattr(data, "tocoo") and hasattr(data, "nnz")


def _is_frame(data):
    return hasattr(data, "columns") and hasattr(data, "to_numpy")


def _number(x):
    """A float as the shortest text that reads back to the same double."""
    return repr(float(x)) if np.isfinite(x) else ("nan" if np.isnan(x) else ("inf" if x > 0 else "-inf"))


def _write_table(path, columns, matrix):
    names = [str(c) for c in columns]
    for n in names:
        if "," in n or "\n" in n or '"' in n:
            raise ValueError(f"column name {n!r}: a table's column names may not hold a comma, a quote or a line break")
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(names) + "\n")
        for row in matrix:
            f.write(",".join(_number(x) for x in row) + "\n")


def _table(data, label):
    if isinstance(data, tuple) and len(data) == 2:
        X, y = (np.asarray(d) for d in data)
        if X.ndim != 2 or y.ndim != 1 or len(y) != len(X):
            raise ValueError(f"data: (X, y) needs X of shape (n, d) and y of shape (n,); got {X.shape} and {y.shape}")
        columns = [f"x{j + 1}" for j in range(X.shape[1])] + [label or "y"]
        return columns, np.column_stack([X.astype(float), y.astype(float)])
    if _is_frame(data):
        return list(data.columns), data.to_numpy(dtype=float)
    a = np.asarray(data, dtype=float)
    if a.ndim != 2:
        raise ValueError(f"data: a table must be 2-D (rows x columns); got shape {a.shape}")
    return [f"x{j + 1}" for j in range(a.shape[1])], a


def _corpus_from_tokens(docs, folder):
    ids = {}
    lines = []
    for d, doc in enumerate(docs):
        if isinstance(doc, str):
            raise ValueError(f"data: document {d} is a string; give each document as a list of tokens (str.split())")
        counts = {}
        for t in doc:
            t = str(t)
            if not t or any(c.isspace() for c in t):
                raise ValueError(f"data: document {d}: token {t!r} is empty or holds white space")
            i = ids.setdefault(t, len(ids))
            counts[i] = counts.get(i, 0) + 1
        lines.append(f"{len(counts)} " + " ".join(f"{i}:{c}" for i, c in sorted(counts.items())))
    if not ids:
        raise ValueError("data: the documents hold no token")
    vocabulary = sorted(ids, key=ids.get)
    return _write_corpus(folder, lines, vocabulary)


def _write_corpus(folder, lines, vocabulary):
    counts = os.path.join(folder, "corpus.ldac")
    with open(counts, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(vocabulary) + "\n")
    return [counts], "corpus"


def _corpus_from_matrix(matrix, vocabulary, folder):
    m = matrix.tocsr()
    m.sum_duplicates()
    if vocabulary is None:
        vocabulary = [f"w{j}" for j in range(m.shape[1])]
    vocabulary = [str(w) for w in vocabulary]
    if len(vocabulary) != m.shape[1]:
        raise ValueError(f"vocabulary: {len(vocabulary)} words for a matrix of {m.shape[1]} columns")
    values = m.data
    if values.size and (np.any(values < 0) or np.any(values != np.round(values))):
        raise ValueError("data: a corpus's counts must be whole numbers >= 0")
    lines = []
    for d in range(m.shape[0]):
        lo, hi = m.indptr[d], m.indptr[d + 1]
        pairs = [(int(j), int(c)) for j, c in zip(m.indices[lo:hi], values[lo:hi]) if c > 0]
        pairs.sort()
        lines.append(f"{len(pairs)} " + " ".join(f"{j}:{c}" for j, c in pairs))
    return _write_corpus(folder, lines, vocabulary)


def _ratings(data, folder):
    path = os.path.join(folder, "ratings.csv")
    if _is_sparse(data):  # ids are 1-based: row + 1, column + 1
        coo = data.tocoo()
        rows = zip(coo.row + 1, coo.col + 1, coo.data)
    elif _is_frame(data):
        if data.shape[1] < 3:
            raise ValueError("data: ratings need user, item and rating columns")
        rows = data.iloc[:, :3].itertuples(index=False, name=None)
    else:
        a = np.asarray(data)
        if a.ndim != 2 or a.shape[1] < 3:
            raise ValueError(f"data: ratings need (n, 3) user, item, rating rows; got shape {a.shape}")
        rows = ((r[0], r[1], r[2]) for r in a)
    with open(path, "w", encoding="utf-8") as f:
        f.write("userId,movieId,rating,timestamp\n")
        for u, i, r in rows:
            f.write(f"{int(u)},{int(i)},{_number(r)},0\n")
    return [path], "ratings"


def _graph(data, folder):
    if hasattr(data, "edges") and callable(data.edges):
        pairs = list(data.edges())
    else:
        pairs = [tuple(p) for p in np.asarray(data).tolist()] if isinstance(data, np.ndarray) else list(data)
    path = os.path.join(folder, "edges.csv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("source,target\n")
        for k, p in enumerate(pairs):
            if len(p) < 2:
                raise ValueError(f"data: edge {k} is {p!r}, not a (source, target) pair")
            a, b = str(p[0]), str(p[1])
            if any(c in s for s in (a, b) for c in ",\n"):
                raise ValueError(f"data: edge {k}: a node name may not hold a comma or a line break")
            f.write(f"{a},{b}\n")
    return [path], "graph"


def _image(data, folder, write_image):
    a = np.asarray(data)
    if a.ndim == 3 and a.shape[2] == 4:
        a = a[:, :, :3]
    if not (a.ndim == 2 or (a.ndim == 3 and a.shape[2] == 3)):
        raise ValueError(f"data: an image must be (height, width) or (height, width, 3); got shape {a.shape}")
    if a.dtype == np.bool_:
        a = a.astype(np.uint8) * 255
    elif a.dtype == np.uint16 and a.ndim == 3:  # 16-bit colour: written as 8-bit colour
        a = np.round(a / 257.0).astype(np.uint8)
    elif a.dtype not in (np.uint8, np.uint16):
        f = a.astype(float)
        if not np.all(np.isfinite(f)):
            raise ValueError("data: the image holds NaN or infinite values")
        if f.min() < 0 or f.max() > 255:
            raise ValueError(f"data: a float image is on the 0-255 scale; its values run from {f.min():g} to {f.max():g}")
        if a.ndim == 3:
            a = np.round(f).astype(np.uint8)
        else:
            a = np.round(f * (65535.0 / 255.0)).astype(np.uint16)
    path = os.path.join(folder, "image.png")
    write_image(np.ascontiguousarray(a), path)
    return [path], "image"


# Each file written from memory: the line of its first item, and what an item is.
_FIRST_ITEM = {"table.csv": (2, "row"), "corpus.ldac": (1, "document"),
               "ratings.csv": (2, "rating"), "edges.csv": (2, "edge")}


def explain(message, folder):
    """A reader's `message` about files written into `folder` from memory, as about the data
    given: "'<folder>/table.csv' line 5" becomes "the data given (table.csv) row 3 (0-based)"."""
    def local(m):
        name = os.path.basename(m.group(1))
        text = f"the data given ({name})"
        if m.group(2) and name in _FIRST_ITEM:
            first, noun = _FIRST_ITEM[name]
            text += f" {noun} {int(m.group(2)) - first} (0-based)"
        elif m.group(2):
            text += f" line {m.group(2)}"
        return text
    return re.sub("'" + re.escape(folder) + r"/([^']+)'(?: line (\d+))?", local, message)


def is_in_memory(data):
    return not (data is None or isinstance(data, (str, os.PathLike)) or
                (isinstance(data, (list, tuple)) and data and all(isinstance(d, (str, os.PathLike)) for d in data)))


def write(data, kind, folder, write_image, vocabulary=None, label=None):
    """Writes in-memory `data` into `folder`; returns (files, kind)."""
    os.makedirs(folder, exist_ok=True)
    if kind == "graph" or (not kind and isinstance(data, list) and data and isinstance(data[0], tuple)) or \
            (not kind and hasattr(data, "edges") and callable(getattr(data, "edges"))):
        return _graph(data, folder)
    if kind == "ratings":
        return _ratings(data, folder)
    if _is_sparse(data):
        if kind not in ("", None, "corpus"):
            raise ValueError(f"data: a sparse matrix is read as a corpus or ratings, not {kind}")
        if kind != "corpus" and vocabulary is None:
            raise ValueError("data: a sparse matrix is a corpus (documents x words: give vocabulary= "
                             "or kind='corpus') or ratings (users x items: give kind='ratings')")
        return _corpus_from_matrix(data, vocabulary, folder)
    if isinstance(data, list) and (not data or isinstance(data[0], (list, tuple))):
        if kind not in ("", None, "corpus"):
            raise ValueError(f"data: a list of token lists is a corpus, not {kind}")
        return _corpus_from_tokens(data, folder)
    a = None if (_is_frame(data) or isinstance(data, tuple)) else np.asarray(data)
    if kind == "image" or (not kind and a is not None and a.dtype == np.uint8 and a.ndim in (2, 3)):
        return _image(data, folder, write_image)
    if kind and kind not in _TABLE_KINDS:
        raise ValueError(f"data: an array is read as an image, a table or labelled data, not {kind}")
    columns, matrix = _table(data, label)
    if matrix.size == 0:
        raise ValueError("data: the table is empty")
    path = os.path.join(folder, "table.csv")
    _write_table(path, columns, matrix)
    return [path], kind or ("labelled" if isinstance(data, tuple) else "table")
