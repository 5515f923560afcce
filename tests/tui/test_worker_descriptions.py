"""Every `@work` method that takes arguments names its description: Textual otherwise describes the call by
the repr of its arguments on the UI thread, and the repr of a 100,000-partition snapshot takes 0.2 s (a
key pressed then waits that long)."""

from __future__ import annotations

import ast
from pathlib import Path

import kafkatui

ROOT = Path(kafkatui.__file__).parent


def _undescribed() -> list[str]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.FunctionDef) or len(node.args.args) + len(node.args.kwonlyargs) < 2:
                continue
            for deco in node.decorator_list:
                name = deco.func if isinstance(deco, ast.Call) else deco
                if isinstance(name, ast.Name) and name.id == "work":
                    keywords = {k.arg for k in deco.keywords} if isinstance(deco, ast.Call) else set()
                    if "description" not in keywords:
                        out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return out


def test_workers_given_arguments_say_what_they_do() -> None:
    assert _undescribed() == []
