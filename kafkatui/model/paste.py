"""What a printed command does (reads or changes), and the block that is safe to paste whole.

Each command a finding prints is of one kind, decided here once for the dashboard, `check` and
`--json`:

- ``read-only``: it only reads (``--describe``, ``--list``, ``--generate``, a ``grep`` of a log, a
  ``printf`` writing a file that only a read-only command reads);
- ``change``: it changes the cluster (``kafka-configs.sh --alter``, ``kafka-leader-election.sh``,
  ``kafka-reassign-partitions.sh --execute``, ``--verify`` (it removes the throttles of a finished
  reassignment), ``--cancel``, ``kubectl patch``), or writes the file such a command reads. A line
  this module does not know is a change: it is never pasted runnable by mistake.

`paste_block` lays the commands out so that pasting the whole block into a shell runs only the
read-only ones: each group of changes follows a comment line saying when to run it
(``# If broker 2 is gone for good, then run ...``) and every change line is commented out.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence

READ_ONLY = "read-only"
CHANGE = "change"
KINDS = (READ_ONLY, CHANGE)
DEFAULT_WHEN = "Once you have read the steps above and want to change the cluster"
_FILE = re.compile(r"^printf '%s\\n' '.*' > (?P<path>\S+)$")
_LOOP = re.compile(r"^for t in .+?; do (?P<body>.+); done$")
_READ_TOOLS = ("kafka-broker-api-versions.sh", "kafka-log-dirs.sh")
_READ_WORDS = ("grep", "tail", "cat", "less", "journalctl", "iostat", "kcat")


def _words(cmd: str) -> list[str]:
    try:
        return shlex.split(cmd)
    except ValueError:
        return cmd.split()


def _tool_kind(cmd: str) -> str:
    """The kind of one command that is not a ``printf`` (pipes: the worst of its parts)."""
    m = _LOOP.match(cmd)
    if m:
        cmd = m.group("body")
    try:
        lex = shlex.shlex(cmd, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        tokens = list(lex)
    except ValueError:
        return CHANGE
    parts: list[list[str]] = [[]]
    for tok in tokens:
        if tok in ("|", ";", "&&", "||", "&"):
            parts.append([])
        else:
            parts[-1].append(tok)
    kinds = [_one_kind(words) for words in parts]
    return CHANGE if CHANGE in kinds else READ_ONLY


def _one_kind(words: list[str]) -> str:
    if not words or any(w in ("<", ">", ">>") or w.startswith(">") for w in words):
        return CHANGE
    tool = words[0].rsplit("/", 1)[-1]
    if tool in _READ_WORDS or tool in _READ_TOOLS:
        return READ_ONLY
    if tool in ("kafka-topics.sh", "kafka-configs.sh", "kafka-consumer-groups.sh"):
        changes = {"--alter", "--create", "--delete", "--reset-offsets", "--delete-offsets"}
        return CHANGE if changes & set(words) else READ_ONLY
    if tool == "kafka-reassign-partitions.sh":
        return READ_ONLY if {"--list", "--generate"} & set(words) else CHANGE
    return CHANGE  # kafka-leader-election.sh, kubectl patch, and whatever is not known


def command_kinds(commands: Sequence[str]) -> list[str]:
    """The kind of each command, in order. A ``printf ... > FILE`` line is a change when a change
    command among `commands` reads FILE, else read-only."""
    kinds = [READ_ONLY if _FILE.match(c) else _tool_kind(c) for c in commands]
    for i, c in enumerate(commands):
        m = _FILE.match(c)
        if m is None:
            continue
        path = m.group("path")
        # the substring test first: splitting a long line (a plan's JSON) into words costs 0.1 s or more
        if any(
            k == CHANGE and path in o and path in _words(o) for o, k in zip(commands, kinds, strict=True) if o is not c
        ):
            kinds[i] = CHANGE
    return kinds


def command_kind(command: str, context: Sequence[str] = ()) -> str:
    """The kind of `command` among the commands `context` it is printed with."""
    cmds = [*context] if command in context else [*context, command]
    return command_kinds(cmds)[cmds.index(command)]


def when_line(when: str | None) -> str:
    """The comment line over a group of changes: ``# If broker 2 is gone for good, then run ...``."""
    text = (when or DEFAULT_WHEN).strip().rstrip(".:")
    return f"# {text}, then run (changes the cluster: uncomment to run):"


def paste_lines(groups: Iterable[tuple[Sequence[str], str | None]]) -> list[str]:
    """The lines of one paste-safe block for several findings' commands: `groups` is (commands,
    when-to-change) per finding, in order. Every read-only command first, each once and runnable;
    then each finding's changes not printed before, under its own comment line, commented out."""
    reads: dict[str, None] = {}
    changes: list[tuple[str | None, list[str]]] = []
    seen: set[str] = set()
    for commands, when in groups:
        mine: list[str] = []
        for cmd, kind in zip(commands, command_kinds(commands), strict=True):
            if not cmd:
                continue
            if kind == READ_ONLY:
                reads.setdefault(cmd, None)
            elif cmd not in seen:
                seen.add(cmd)
                mine.append(cmd)
        if mine:
            changes.append((when, mine))
    out = list(reads)
    for when, cmds in changes:
        out.append(when_line(when))
        out.extend(f"# {c}" for c in cmds)
    return out


def paste_block(commands: Sequence[str], when: str | None = None) -> str:
    """One finding's commands as a block that is safe to paste whole (see `paste_lines`)."""
    lines = paste_lines([(commands, when)])
    return "\n".join(lines) + ("\n" if lines else "")


def runnable_changes(block: str, context: Sequence[str] = ()) -> list[str]:
    """The lines of `block` that a shell would run and that change the cluster (none when safe); each
    judged among the `context` commands it was printed with (a ``printf`` feeding a change there)."""
    lines = [ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    ctx = [*context, *(ln for ln in lines if ln not in context)]
    kinds = dict(zip(ctx, command_kinds(ctx), strict=True))
    return [ln for ln in lines if kinds[ln] == CHANGE]
