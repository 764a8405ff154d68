"""The module's lists are the registry's declarations, as `svi list --json` prints them."""

import json
import subprocess

import pytest

import svi


def test_models_and_algorithms_are_the_registrys(svi_bin):
    listed = json.loads(subprocess.run([svi_bin, "list", "--json"], capture_output=True,
                                       text=True, check=True).stdout)
    assert svi._svi.registry() == listed
    keys = [m["key"] for m in svi.models()]
    assert keys == list(dict.fromkeys(e["model"] for e in listed))
    lda = svi.algorithms("lda")
    assert [e["algorithm"] for e in lda] == [e["algorithm"] for e in listed if e["model"] == "lda"]
    defaults = [m["default_algorithm"] for m in svi.models() if m["key"] == "lda"]
    assert defaults == [e["algorithm"] for e in lda if e["default"]]


def test_parameters_carry_help_ranges_and_defaults():
    entry = next(e for e in svi.algorithms("lda") if e["algorithm"] == "svi")
    K = next(p for p in entry["params"] if p["key"] == "K")
    assert K["type"] == "int" and K["min"] >= 1 and K["help"]
    assert any(m["direction"] == "lower" and m["key"] == "perplexity" for m in entry["metrics"])


def test_help_is_generated_from_the_declarations(capsys):
    text = svi.help_text("lda", "svi")
    assert "kappa" in text and "perplexity" in text
    assert "lower is better" in text
    overview = svi.help_text()
    for kind in svi.data_kinds():
        assert f"  {kind['key']}: " in overview
    for setting in svi.run_settings():
        assert f"    {setting['key']} = {setting['default']}" in overview
    svi.help("lda")
    assert capsys.readouterr().out.startswith("lda / svi")


def test_unknown_model_raises():
    with pytest.raises(ValueError, match="model = nope, but must be one of"):
        svi.algorithms("nope")


def test_version_is_the_commands(svi_bin):
    out = subprocess.run([svi_bin, "--version"], capture_output=True, text=True).stdout
    assert out.strip() == f"svi {svi.__version__}"
