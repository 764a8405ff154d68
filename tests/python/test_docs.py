"""Every snippet of docs/python.md and the README's Python example, run as written."""

import os
import re
import tarfile

import svi

SOURCE = os.environ["SVI_SOURCE_DIR"]


def snippets(path):
    with open(path, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_every_snippet_of_the_python_page_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = snippets(os.path.join(SOURCE, "docs", "python.md"))
    assert len(blocks) >= 8
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)
    # The page's claims hold: the folder read back is the run.
    assert namespace["back"].metrics == namespace["run"].metrics
    assert namespace["curve"][-1][0] == 60


def test_the_readmes_five_lines(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    # The user's texts: the Austen sample's chapters as text files.
    with tarfile.open(svi.sample("austen")[0]) as tar:
        tar.extractall(tmp_path)
    os.makedirs("texts")
    for root, _, files in os.walk(tmp_path / "austen"):
        for name in files:
            os.rename(os.path.join(root, name), os.path.join("texts", os.path.basename(root) + name))
    blocks = snippets(os.path.join(SOURCE, "README.md"))
    assert len(blocks) == 1 and len(blocks[0].strip().splitlines()) == 5
    exec(compile(blocks[0], "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    # A topic a line: its weight and eight words, the heaviest first; Austen's people lead them.
    assert 3 <= len(printed) <= 8 and all(len(line.split()) == 9 for line in printed)
    weights = [float(line.split()[0]) for line in printed]
    assert weights == sorted(weights, reverse=True)
    words = " ".join(printed)
    assert "elizabeth" in words and "wentworth" in words
