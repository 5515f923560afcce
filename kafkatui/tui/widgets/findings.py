"""Findings in full: the text, the exact commands and the Strimzi patch (partition, broker and findings screens)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static, TextArea

from kafkatui.model.findings import Finding
from kafkatui.model.paste import paste_lines
from kafkatui.present import severity_text

COMMANDS_LABEL = "commands (c copies them; changes are commented out, under when to run them):"


def resources_line(f: Finding, limit: int = 6) -> str:
    """'topics orders · partitions orders-0, orders-3 · brokers 3' (long lists end with '+N more')."""

    def few(items: Sequence[object]) -> str:
        head = ", ".join(map(str, items[:limit]))
        return head + (f" +{len(items) - limit} more" if len(items) > limit else "")

    parts = []
    if f.topics:
        parts.append(f"topic{'s' if len(f.topics) > 1 else ''} {few(f.topics)}")
    if f.partitions:
        parts.append(f"partition{'s' if len(f.partitions) > 1 else ''} {few(f.partitions)}")
    elif f.affected_partitions:
        parts.append(f"{f.affected_partitions} partition{'s' if f.affected_partitions != 1 else ''}")
    if f.brokers:
        parts.append(f"broker{'s' if len(f.brokers) > 1 else ''} {few(f.brokers)}")
    return " · ".join(parts)


def bullets(items: Sequence[str], numbered: bool = False) -> Table:
    """Items under a bullet or a number, wrapped lines indented under the text (not the bullet)."""
    grid = Table.grid(padding=(0, 1), pad_edge=False)
    grid.add_column(no_wrap=True, justify="right", min_width=3)
    grid.add_column(ratio=1, overflow="fold")
    for i, item in enumerate(items, 1):
        grid.add_row(f"{i}." if numbered else "•", item)
    return grid


def finding_text(f: Finding) -> Group:
    """Severity, title, resources, evidence, causes and steps (the commands go in a TextArea)."""
    head = severity_text(f.severity)
    head.stylize("bold")
    head.append("  ")
    head.append(f.title, style="bold")
    head.append(f"  [{f.id}]", style="dim")
    parts: list[RenderableType] = [head]
    res = resources_line(f)
    if res:
        parts.append(Text(res, style="dim"))
    for label, items, numbered in (
        ("evidence", f.evidence, False),
        ("likely causes", f.causes, False),
        ("what to do", f.steps, True),
    ):
        if items:
            parts.append(Text(f"{label}:", style="bold"))
            parts.append(bullets(items, numbered))
    return Group(*parts)


def all_commands(found: Iterable[Finding]) -> list[str]:
    """Every command of the findings, in order, each once."""
    return list(dict.fromkeys(c for f in found for c in f.commands))


def paste_text(found: Iterable[Finding]) -> list[str]:
    """The findings' commands as one block safe to paste whole: read-only ones runnable, each change
    commented out under a line saying when to run it (kafkatui.model.paste)."""
    return paste_lines((f.commands, f.change_when) for f in found)


def copy_commands(screen: Screen[None], found: Iterable[Finding]) -> None:
    """Put the findings' commands on the clipboard (OSC 52) as a paste-safe block and say what it holds."""
    lines = paste_text(found)
    if not lines:
        screen.notify("no commands on this screen", severity="warning", timeout=3)
        return
    screen.app.copy_to_clipboard("\n".join(lines) + "\n")
    changes = sum(1 for ln in lines if ln.startswith("# ") and not ln.endswith(":"))
    reads = sum(1 for ln in lines if not ln.startswith("#"))
    said = f"copied {reads} read-only command{'s' if reads != 1 else ''}"
    if changes:
        said += f" and {changes} change{'s' if changes != 1 else ''}, commented out"
    screen.notify(said + " (OSC 52: the terminal must allow it)", timeout=3)


class FindingView(Vertical):
    """One finding in full: the text, then its exact commands and Strimzi patch in read-only text areas
    (select with the mouse or shift+arrows, ctrl+c copies the selection)."""

    DEFAULT_CSS = """
    FindingView { height: auto; margin: 0 0 1 0; }
    FindingView > .finding-body { height: auto; }
    FindingView > .label { height: 1; color: $text-muted; margin-top: 1; }
    FindingView > TextArea { height: auto; border: none; padding: 0 1; background: $boost; }
    FindingView > TextArea:focus { border: none; background-tint: $primary 10%; }
    FindingView > .hidden { display: none; }
    """

    def __init__(self, finding: Finding | None = None, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.finding = finding

    def compose(self) -> ComposeResult:
        yield Static(classes="finding-body")
        yield Static(COMMANDS_LABEL, classes="label commands-label")
        yield TextArea(read_only=True, soft_wrap=True, show_line_numbers=True, classes="commands")
        yield Static("Strimzi KafkaTopic patch (merge into spec):", classes="label patch-label")
        yield TextArea(read_only=True, soft_wrap=True, show_line_numbers=False, classes="patch")

    def on_mount(self) -> None:
        for area in self.query(TextArea):
            area.cursor_blink = False
        if self.finding is not None:
            self.show(self.finding)

    def show(self, finding: Finding) -> None:
        """Redraw for `finding`."""
        self.finding = finding
        self.query_one(".finding-body", Static).update(finding_text(finding))
        commands = self.query_one(".commands", TextArea)
        text = "\n".join(paste_text([finding]))
        if commands.text != text:  # a refresh must not reset a selection in progress
            commands.load_text(text)
        for widget in (commands, self.query_one(".commands-label")):
            widget.set_class(not finding.commands, "hidden")
        patch = self.query_one(".patch", TextArea)
        yaml = (finding.strimzi_patch or "").rstrip("\n")
        if patch.text != yaml:
            patch.load_text(yaml)
        for widget in (patch, self.query_one(".patch-label")):
            widget.set_class(not finding.strimzi_patch, "hidden")


class FindingList(Vertical):
    """A list of FindingViews, rebuilt only when the findings change (keeps scroll and focus otherwise)."""

    DEFAULT_CSS = """
    FindingList { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.findings: tuple[Finding, ...] = ()

    def show(self, found: Sequence[Finding]) -> None:
        new = tuple(found)
        if new == self.findings and len(self.children) == len(new):
            return
        views = list(self.query_children(FindingView))
        if len(views) == len(new):
            for view, f in zip(views, new, strict=True):
                view.show(f)
        else:
            self.remove_children()
            self.mount_all([FindingView(f) for f in new])
        self.findings = new
