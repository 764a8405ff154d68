#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets: tests/fuzz/corpus/<target>/ and its README.md.

    python3 tests/fuzz/make_seeds.py            (from anywhere; paths are found from this file)

Python 3 standard library only. The generators live in the package tests/fuzz/seeds/, one module
per group of targets (see seeds/__init__.py); this script runs them and writes what they made.

The output is the same bytes on every run: gzip members are written with a fixed header (mtime
0, OS byte 255), tar headers with fixed mtimes, owners and modes, and images by the small writers
of seeds/images.py (no third-party imaging package and no external tool, so the bytes do not
depend on what is installed). Compressed bytes (gzip, PNG) come from the zlib the interpreter
links; every zlib release since 1.2 gives the same output for the same level, but a different
deflate implementation (zlib-ng, say) could change them: the seeds would still be valid, just
not byte-identical.

The real files are cut from tests/data (see tests/data/README.md for their provenance); the
malformed cases are those of the named tests in tests/core; the rest is written here. The
corpus README (tests/fuzz/corpus/README.md) is generated from the descriptions given in the
seeds/ modules, so edit them there, not in the corpus.

Each run removes, in the target folders it writes, the files it no longer makes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from seeds import common, corpora, fcs, graphs, images, json_files, ratings, sniff, tables  # noqa: E402

GENERATORS = (fcs.make_fcs, tables.make_table, corpora.make_ldac, corpora.make_uci, corpora.make_tar,
              corpora.make_text, ratings.make_ratings, images.make_image, json_files.make_session,
              json_files.make_run_config, graphs.make_graph,
              sniff.make_sniff)  # sniff last: it takes the others' seeds


def main():
    for make in GENERATORS:
        make()
    common.write_all()


if __name__ == "__main__":
    main()
