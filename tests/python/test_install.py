"""cmake --install into a temporary prefix: the installed svi and the installed Python module run
from there; the desktop entry validates; svi(1) formats without a warning."""

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    build = os.environ["SVI_BUILD_DIR"]
    root = tmp_path_factory.mktemp("prefix")
    subprocess.run(["cmake", "--install", build, "--prefix", str(root)], check=True,
                   capture_output=True)
    return root


def clean_env(**extra):
    """The environment without the build tree's module on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SVI_BIN")}
    env.update(extra)
    return env


def test_the_installed_svi_runs(prefix):
    svi = prefix / "bin" / "svi"
    out = subprocess.run([str(svi), "--version"], capture_output=True, text=True, env=clean_env())
    assert out.returncode == 0 and out.stdout.startswith("svi ")
    assert (prefix / "bin" / "svi-workbench").exists() and (prefix / "bin" / "svi-plot").exists()


def test_the_installed_module_imports_and_runs(prefix, tmp_path):
    site = prefix / "lib" / "python3" / "dist-packages"
    code = ("import svi, sys; print(svi.__file__); "
            "r = svi.run([['a', 'b', 'a'], ['c', 'd']] * 20, model='lda', K=2, steps=3); "
            "print(r.summary['steps'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env=clean_env(PYTHONPATH=str(site)))
    assert out.returncode == 0, out.stderr
    where, steps = out.stdout.split()
    assert where.startswith(str(site)) and steps == "3"


def test_the_desktop_entry_and_its_icon(prefix):
    entry = prefix / "share" / "applications" / "svi-workbench.desktop"
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate is not installed (Debian: desktop-file-utils)")
    out = subprocess.run([tool, str(entry)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "", out.stdout
    text = entry.read_text()
    assert "Exec=svi-workbench %f" in text and "Icon=svi-workbench" in text
    icon = prefix / "share" / "icons" / "hicolor" / "scalable" / "apps" / "svi-workbench.svg"
    assert ET.parse(icon).getroot().tag.endswith("svg")


def test_the_man_page_formats_cleanly_and_lists_every_model(prefix):
    page = prefix / "share" / "man" / "man1" / "svi.1"
    text = page.read_text(encoding="utf-8")
    import svi
    for m in svi.models():
        assert f'.SS "{m["key"]} ' in text
    assert "\\-\\-missing" in text and "\\-\\-strip\\-headers" in text
    groff = shutil.which("groff")
    if groff is None:
        pytest.skip("groff is not installed (Debian: groff-base)")
    out = subprocess.run([groff, "-man", "-ww", "-z", "-Kutf8", "-Tutf8", str(page)], capture_output=True,
                         text=True)
    assert out.returncode == 0 and out.stderr == "", out.stderr
