"""Runs every ```python block of README.md from the repository's root, as a reader would."""
import os
import pathlib
import re

from conftest import DATA

README = pathlib.Path(os.environ.get("GRAPHPAT_README", DATA.parents[1] / "README.md"))


def test_readme_python_blocks(monkeypatch, capsys):
    """Each block prints what the comments of its print() lines say."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(README.parent)
    for block in blocks:
        expected = "".join(line.split("  # ", 1)[1] + "\n" for line in block.splitlines()
                           if line.startswith("print("))
        exec(compile(block, str(README), "exec"), {})
        assert capsys.readouterr().out == expected
