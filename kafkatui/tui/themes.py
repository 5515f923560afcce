"""Themes: YAML files loaded as Textual Theme objects, registered in one place.

Shipped themes live in the repository's themes/ folder (packaged with kafkatui); users add their
own as ~/.config/kafkatui/themes/*.yaml (or $KAFKATUI_THEMES). A broken theme file is reported
in one line and skipped; the app keeps running on the default.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.css.constants import VALID_STYLE_FLAGS
from textual.theme import Theme

from kafkatui import safeyaml

DEFAULT_THEME = "kafkatui-dark"
FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
MAX_THEME_BYTES = 256 * 1024
_VARIABLE_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


class ThemeError(Exception):
    """A theme file that cannot be used (one line: file and problem)."""


def theme_dirs() -> list[Path]:
    dirs = [Path(__file__).parent / "themes"]
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "kafkatui" / "themes"
    dirs.append(Path(os.environ["KAFKATUI_THEMES"]) if os.environ.get("KAFKATUI_THEMES") else config)
    return dirs


def parse_theme(path: Path) -> Theme:
    """One YAML theme file -> Theme (ThemeError with file and problem).

    Only a regular file is opened (a FIFO in the themes folder would block the start), at most
    MAX_THEME_BYTES of it; `variables:` must be a mapping of Textual variable names to colours or
    text styles, checked here because Textual only finds a bad one while drawing the first screen.
    """
    try:
        data = safeyaml.load(safeyaml.read_text_bounded(path, MAX_THEME_BYTES, pipes=False))
    except safeyaml.InputError as exc:
        raise ThemeError(f"{path}: cannot read: {exc.reason}; skipped") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except yaml.YAMLError as exc:
        line, problem = safeyaml.yaml_problem(exc)
        where = f":{line}" if line is not None else ""
        kind = "" if isinstance(exc, safeyaml.LimitError) else "invalid YAML: "
        raise ThemeError(f"{path}{where}: {kind}{problem}") from None
    if not isinstance(data, dict):
        raise ThemeError(f"{path}: a theme is a mapping of name, dark and colours")
    unknown = {str(k) for k in data} - {"name", "dark", "variables", *FIELDS}
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
    variables = _variables(path, data.get("variables"))
    try:
        return Theme(name=data["name"], dark=bool(data.get("dark", True)), variables=variables, **colours)
    except Exception as exc:  # Textual validates colours
        raise ThemeError(f"{path}: {' '.join(str(exc).split())}") from None


def _variables(path: Path, raw: object) -> dict[str, str]:
    """`variables:` checked: names like block-cursor-background, values colours ('#ff0000', 'red 50%',
    'auto 87%', 'transparent') or, for *-style names, text styles ('bold underline', 'none')."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        kind = "a list" if isinstance(raw, list) else f"{type(raw).__name__} {raw!r}"
        raise ThemeError(
            f"{path}: variables: must be a mapping of names to colours "
            f"(e.g. block-cursor-background: '#ff0000'), not {kind}"
        )
    out: dict[str, str] = {}
    for name, value in raw.items():
        if not isinstance(name, str) or not _VARIABLE_NAME.match(name):
            raise ThemeError(f"{path}: variables: {name!r} is not a variable name (e.g. block-cursor-background)")
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ThemeError(f"{path}: variables: {name}: {value!r} is not a colour or a text style")
        text = " ".join(str(value).split())
        if "style" in name:
            words = text.split()
            if not words or any(w not in VALID_STYLE_FLAGS for w in words):
                raise ThemeError(
                    f"{path}: variables: {name}: {text!r} is not a text style (e.g. 'bold', 'bold underline', 'none')"
                )
        elif not _is_colour(text):
            raise ThemeError(
                f"{path}: variables: {name}: {text!r} is not a colour "
                "(e.g. '#ff0000', 'ansi_red', 'red 50%', 'auto 87%')"
            )
        out[name] = text
    return out


def _is_colour(text: str) -> bool:
    colour, _, rest = text.partition(" ")
    if rest and not re.fullmatch(r"\d{1,3}(\.\d+)?%", rest):
        return False
    if colour in ("auto", "initial", "transparent"):
        return True
    try:
        Color.parse(colour)
    except ColorParseError:
        return False
    return True


def load_themes() -> tuple[list[Theme], list[str]]:
    """Every theme found, and one-line problems with the files that could not be used."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for folder in theme_dirs():
        if not folder.is_dir():
            continue
        try:
            paths = sorted(folder.glob("*.yaml"))
        except OSError as exc:
            problems.append(f"{folder}: cannot list themes: {exc.strerror or exc}")
            continue
        for path in paths:
            if _not_a_file(path):
                problems.append(f"{path}: not a regular file (a FIFO, socket or device); skipped")
                continue
            try:
                theme = parse_theme(path)
            except ThemeError as exc:
                problems.append(str(exc))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems


def _not_a_file(path: Path) -> bool:
    """True for what must never be opened while the dashboard starts (a FIFO blocks the open)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False  # parse_theme words the error
    return not stat.S_ISREG(mode)
