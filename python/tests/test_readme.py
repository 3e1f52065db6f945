"""Runs every ```python block of README.md from the repository's root, as a reader would."""
import os
import pathlib
import re

from conftest import DATA

README = pathlib.Path(os.environ.get("GRAPHPAT_README", DATA.parents[1] / "README.md"))


def test_readme_python_blocks(monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(README.parent)
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
    assert capsys.readouterr().out == "53 groups, 0 rejected\n"
