"""Themes: YAML files loaded as Textual Theme objects, registered in one place.

Shipped themes live in the repository's themes/ folder (packaged with kafkatui); users add their
own as ~/.config/kafkatui/themes/*.yaml (or $KAFKATUI_THEMES). A broken theme file is reported
in one line and skipped; the app keeps running on the default.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

DEFAULT_THEME = "kafkatui-dark"
FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background", "surface",
          "panel", "boost")


class ThemeError(Exception):
    """A theme file that cannot be used (one line: file and problem)."""


def theme_dirs() -> list[Path]:
    dirs = [Path(__file__).parent / "themes"]
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "kafkatui" / "themes"
    dirs.append(Path(os.environ["KAFKATUI_THEMES"]) if os.environ.get("KAFKATUI_THEMES") else config)
    return dirs


def parse_theme(path: Path) -> Theme:
    """One YAML theme file -> Theme (ThemeError with file and problem)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ThemeError(f"{path}{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise ThemeError(f"{path}: a theme is a mapping of name, dark and colours")
    unknown = set(data) - {"name", "dark", "variables", *FIELDS}
    if unknown:
        raise ThemeError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    if not isinstance(data.get("name"), str) or not isinstance(data.get("primary"), str):
        raise ThemeError(f"{path}: 'name' and 'primary' are required strings")
    colours: dict[str, Any] = {k: str(data[k]) for k in FIELDS if data.get(k) is not None}
    for key, value in colours.items():
        try:
            Color.parse(value)
        except ColorParseError:
            raise ThemeError(f"{path}: {key}: {value!r} is not a colour (e.g. '#0178D4' or 'ansi_blue')") from None
    try:
        return Theme(name=data["name"], dark=bool(data.get("dark", True)),
                     variables=dict(data.get("variables") or {}), **colours)
    except Exception as exc:  # Textual validates colours
        raise ThemeError(f"{path}: {exc}") from None


def load_themes() -> tuple[list[Theme], list[str]]:
    """Every theme found, and one-line problems with the files that could not be used."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for folder in theme_dirs():
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.yaml")):
            try:
                theme = parse_theme(path)
            except ThemeError as exc:
                problems.append(str(exc))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems
