"""Words and symbols shared by `check`'s output and the dashboard (rich only, no textual).

One home for how a status, a severity, a verdict, a config source, a size, a list of broker ids, a
tolerance or a snapshot problem is said, so that a tired reader meets the same words on every screen
and in every report. The dashboard's own table cells build on these in `kafkatui.tui.format`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kafkatui.model.evaluation import verdict_of as verdict_of  # the one verdict rule, re-exported
from kafkatui.model.findings import human_bytes as human_bytes  # the one size formatter, re-exported
from kafkatui.model.health import BrokerHealth, ClusterCounts, Health, TopicHealth
from kafkatui.model.mode import Mode, words

if TYPE_CHECKING:
    from rich.text import Text  # imported where a Text is made: `check --json` needs no rich

# A symbol plus a short word: readable without colour and narrow enough to leave names their room.
SHORT_LABEL = {
    Health.OFFLINE: "offline",
    Health.UNDER_MIN_ISR: "<minISR",
    Health.AT_MIN_ISR: "=minISR",
    Health.UNDER_REPLICATED: "URP",
    Health.NON_PREFERRED_LEADER: "leader",
    Health.HEALTHY: "ok",
}
HEALTH_STYLE = {
    Health.OFFLINE: "bold red",
    Health.UNDER_MIN_ISR: "red",
    Health.AT_MIN_ISR: "yellow",
    Health.UNDER_REPLICATED: "yellow",
    Health.NON_PREFERRED_LEADER: "cyan",
    Health.HEALTHY: "green",
}
STATUS_LEGEND = (
    "✖ offline: no leader · ▼ <minISR: acks=all writes fail · ● =minISR: one more loss and they "
    "fail · ◐ URP: under-replicated · ↺ leader: not the preferred one · ✓ ok"
)
VERDICT_SYMBOL = {"critical": "✖", "warning": "▲", "healthy": "✓"}
SEVERITY_SYMBOL = {"critical": "✖", "warning": "▲", "info": "ℹ"}
SEVERITY_STYLE = {"critical": "bold red", "warning": "yellow", "info": "cyan"}
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
# where a config value comes from (Kafka's ConfigSource names), in a word; the JSON keeps Kafka's names
SOURCE_WORD = {
    "DYNAMIC_TOPIC_CONFIG": "topic",
    "DYNAMIC_BROKER_CONFIG": "broker",
    "DYNAMIC_DEFAULT_BROKER_CONFIG": "cluster",
    "STATIC_BROKER_CONFIG": "static",
    "DEFAULT_CONFIG": "default",
    "ASSUMED_DEFAULT": "assumed",
}


def short_status(h: Health) -> Text:
    """'✖ offline', '▼ <minISR', '● =minISR', '◐ URP', '↺ leader', '✓ ok' (at most 9 cells)."""
    from rich.text import Text

    return Text(f"{h.symbol} {SHORT_LABEL[h]}", style=HEALTH_STYLE[h])


def leader_down_status() -> Text:
    """'⊘ ldr dn': a topic or partition whose leader refuses connections and has not been moved yet (its
    class still follows the metadata's ISR; writes to it fail until the controller moves it)."""
    from rich.text import Text

    from kafkatui.model.unfenced import SYMBOL

    return Text(f"{SYMBOL} ldr dn", style="bold red")


def severity_text(severity: str) -> Text:
    """'✖ critical', '▲ warning', 'ℹ info': a symbol and a word, never colour alone."""
    from rich.text import Text

    return Text(f"{SEVERITY_SYMBOL.get(severity, '•')} {severity}", style=SEVERITY_STYLE.get(severity, ""))


def source_word(source: str) -> str:
    """A config source as a short word: 'topic', 'broker', 'cluster', 'default', 'assumed'..."""
    return SOURCE_WORD.get(source, source.lower())


def ids(values: tuple[int, ...] | None) -> str:
    """(1, 2, 3) -> '1,2,3'; () -> 'none'; None -> '?'."""
    if values is None:
        return "?"
    return ",".join(map(str, values)) if values else "none"


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 change', '2 changes', '0 changes' ('many' for irregular plurals)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def failures(n: int) -> str:
    return plural(n, "failure")


def min_isr_cell(t: TopicHealth, source: str = "") -> str:
    """'2 topic', or '3→2 broker' when the brokers hold the topic to less than its config (3.7+ cap it
    at RF): configured, then effective."""
    value = str(t.min_isr)
    if 0 < t.effective_min_isr != t.min_isr:
        value += f"→{t.effective_min_isr}"
    return f"{value} {source}" if source else value


def brokers_down_phrase(c: ClusterCounts) -> str:
    """' (absent: 4)', ' (refusing connections: 2)', both, or '' when every broker is up."""
    out = ""
    if c.brokers_absent:
        out += f" (absent: {', '.join(map(str, c.brokers_absent))})"
    if c.brokers_refused:
        out += f" (refusing connections: {', '.join(map(str, c.brokers_refused))})"
    return out


def broker_state(b: BrokerHealth, down_word: str = "DOWN", mode: Mode | None = None) -> Text:
    """'✔ up ctrl', '✖ DOWN ⚠ in no ISR', ...: status in words and symbols, never colour alone.

    A broker that refuses connections but is still listed: 'DOWN unfenced' (KRaft), 'DOWN registered'
    (ZooKeeper mode: until its session expires); `mode` from `model.mode.snapshot_mode`."""
    from rich.text import Text

    if b.unresponsive:  # frozen (SIGSTOP, GC pause, stuck disk): its port takes connections, nothing answers
        t = Text("✖ NOT ANSWERING (accepts connections)", style="bold red")
    elif b.refused:  # killed a moment ago: listed until the controller fences it / its session expires
        t = Text(f"✖ {words(mode).down_listed}", style="bold red")
    else:
        t = Text("✔ up" if b.up else f"✖ {down_word}", style="green" if b.up else "bold red")
    if b.controller:
        t.append(" ctrl")
    if b.missing_from_all_isrs:
        t.append(" ⚠ in no ISR", style="bold red")
    elif b.missing_from_most_isrs:
        t.append(" ⚠ in few ISRs", style="red")
    return t


def restart_now(b: BrokerHealth, compact: bool = False) -> Text:
    """Whether restarting the broker now is safe, and what it would break if not."""
    from rich.text import Text

    if not b.serving:
        return Text("-", style="dim")
    if b.restart_safe:
        return Text("safe" if compact else "✔ safe", style="green")
    if compact:
        return Text(f"NO: {b.restart_under_min_isr}<min {b.restart_offline} off", style="red")
    return Text(f"✖ {b.restart_under_min_isr} <minISR, {b.restart_offline} offl", style="red")


# ----------------------------------------------------------------------------- snapshot problems
_REASONS = [
    (
        re.compile(r"connection failed \(.*(?:111|ECONNREFUSED?)|Connection refused", re.I),
        "the broker refused the connection: it is down or restarting",
    ),
    (re.compile(r"no answer within ([\d.]+)s"), r"no answer within \1 s"),
    (re.compile(r"connection failed"), "could not connect"),
    (re.compile(r"not \(or no longer\) in the cluster metadata"), "the broker is no longer in the cluster"),
    (re.compile(r"still unanswered"), "an earlier request is still unanswered"),
    (re.compile(r"not authorized \((\w+)"), r"not authorized (\1)"),
]
_WHATS = [
    (re.compile(r"^log dirs and ELR unavailable"), "replica sizes and lag, and ELR"),
    (re.compile(r"^log dirs of broker (\d+) unknown"), r"replica sizes and lag on broker \1"),
    (re.compile(r"^ELR unknown for (\d+) topic\(s\)"), r"ELR of \1 topic(s) under minISR"),
    (re.compile(r"^ELR unknown"), "ELR"),
    (re.compile(r"^configs of broker (\d+) unreadable"), r"the configs of broker \1"),
    (re.compile(r"^configs of (\d+) topic\(s\) unreadable"), r"the configs of \1 topic(s)"),
    (re.compile(r"^broker (\d+): log dir (\S+) is unavailable"), r"log dir \2 of broker \1 (offline disk)"),
]


def problem_words(problem: str) -> tuple[str, str]:
    """(what is missing, why) for one snapshot problem line, in words rather than exception names."""
    what = problem.split(":", 1)[0]
    for rx, repl in _WHATS:
        m = rx.search(problem)
        if m:
            what = m.expand(repl)
            break
    why = problem.split(":", 1)[1].strip() if ":" in problem else ""
    for rx, repl in _REASONS:
        m = rx.search(problem)
        if m:
            why = m.expand(repl)
            break
    return what, why


def problems_sentence(problems: Iterable[str]) -> str:
    """One sentence for a PARTIAL snapshot: 'missing: replica sizes and lag on broker 4 (the broker refused...)'.

    Problems with the same reason are grouped, so a refused broker is said once, not once per request.
    """
    by_why: dict[str, list[str]] = {}
    for p in problems:
        what, why = problem_words(p)
        items = by_why.setdefault(why, [])
        if what not in items:
            items.append(what)
    parts = [", ".join(whats) + (f" ({why})" if why else "") for why, whats in by_why.items()]
    return "missing: " + "; ".join(parts) if parts else ""
