"""`kafkatui replay`: run the PySpark replay job on one day with a progress bar, then summarise it."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from kafkatui.argparsing import Parser
from kafkatui.history.replay.job import (
    EXIT_FAILED,
    EXIT_NO_JAVA,
    STAGES,
    ReplayConfig,
    ReplayError,
    ReplayResult,
    add_arguments,
    conf_from,
    config_from,
)
from kafkatui.history.replay.schema import outputs_text

DESCRIPTION = (
    "Replay a day of ISR history (recordings and/or broker logs) through PySpark: per-minute "
    "timeline, intervals, incidents, brokers, top partitions, and frames for `kafkatui --replay`."
)


def _err(msg: str) -> None:
    sys.stderr.write(f"kafkatui replay: error: {msg}\n")
    sys.stderr.flush()


def _hms(ms: int | None, day_start: int | None = None) -> str:
    """HH:MM:SS.fff (UTC); the end of the day is 24:00:00.000."""
    if ms is None:
        return "-"
    if day_start is not None and ms == day_start + 86_400_000:
        return "24:00:00.000"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%H:%M:%S.%f")[:-3]


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def incident_table(summary: dict[str, Any], limit: int = 15, width: int = 120) -> Table:
    """The day's incidents, in time order, the first `limit` (numbers never cut: topics take what is left)."""
    table = Table(title=f"incidents on {summary['day']} (UTC)", title_justify="left")
    rows = []
    for inc in summary["incidents"][:limit]:
        first = (
            "-" if inc["first_broker_out"] is None else f"{inc['first_broker_out']} at {_hms(inc['first_out_ms'])[:8]}"
        )
        rows.append(
            (
                _hms(inc["start_ms"]),
                "ongoing" if inc.get("ongoing") else _hms(inc["end_ms"], summary["day_start_ms"]),
                f"{inc['duration_s']:.2f}",
                first,
                str(inc["partitions"]),
                str(inc["peak_under_min_isr"]),
                str(inc["peak_offline"]),
                ", ".join(inc["topics"]),
            )
        )
    heads = ("start", "end", "seconds", "first out", "parts", "<min", "offl")
    for i, col in enumerate(heads):
        size = max([len(col)] + [len(r[i]) for r in rows])
        table.add_column(col, justify="right", no_wrap=True, min_width=size)
    room = width - sum(c.min_width or 0 for c in table.columns) - 3 * len(table.columns) - 4
    if room >= 12:  # on a narrow terminal the topics are left to summary.json
        table.add_column("topics", overflow="ellipsis", no_wrap=True, max_width=room)
    for r in rows:
        table.add_row(*(r if room >= 12 else r[:-1]))
    more = len(summary["incidents"]) - limit
    table.caption = (
        (f"{more} more in summary.json and incidents/; " if more > 0 else "")
        + "first out: the first broker to leave an ISR in the episode that led to it, and when; "
        "<min: peak partitions under min ISR; offl: peak offline"
        + (
            "; ongoing: still open where the recording ends ("
            + ", ".join(_hms(e)[:8] for e in summary["recording_ends"])
            + ")"
            if summary.get("recording_ends")
            else ""
        )
    )
    table.caption_justify = "left"
    return table


def report(console: Console, result: ReplayResult) -> None:
    """Where the outputs went, what was read, and the incidents."""
    s, out = result.summary, result.out
    i = s["inputs"]
    console.print(
        f"replayed {s['day']} in {result.seconds:.1f} s: {i['events']:,} events, "
        f"{i['torn_lines']} torn lines, {i['unparsed_log_lines']} unparsed log lines, "
        f"{i['newer_schema_records']} records of a newer schema, {len(s['gaps'])} recorder gap(s)"
    )
    console.print(f"outputs in {out}: {outputs_text()}; open with `kafkatui --replay {out}`")
    if i.get("min_isr_note"):
        console.print(i["min_isr_note"])
    if not s["incidents"]:
        if i.get("min_isr_unknown_topics"):
            console.print(
                f"no incident found, but min ISR was unknown for {len(i['min_isr_unknown_topics'])} topic(s): "
                "no partition was offline; under min ISR could not be judged there"
            )
        else:
            console.print("no incident: no partition was under min ISR or offline that day")
        return
    console.print(incident_table(s, width=console.width))
    if len(s["incidents"]) > 15:
        console.print(f"... and {len(s['incidents']) - 15} more in {out}/summary.json")


def run(ns: argparse.Namespace, console: Console | None = None) -> int:
    """Run the replay for parsed arguments; returns the exit code."""
    from kafkatui.history.replay.job import replay

    console = console or Console()
    try:
        cfg = config_from(ns)
        conf = conf_from(ns)
    except ReplayError as exc:
        _err(str(exc))
        return exc.exit_code
    if getattr(ns, "spark_submit", False):
        print(submit_command(ns, conf))
        return 0
    if getattr(ns, "progress_lines", False):
        return _run_with_lines(cfg, ns.master, conf)
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    try:
        # the bar only on a terminal: off one, rich's live display would still end with a blank line
        with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
            task = bar.add_task("starting", total=len(STAGES))

            def progress(stage: int, detail: str) -> None:
                name = STAGES[stage] if stage < len(STAGES) else "done"
                bar.update(task, completed=stage, description=f"{name}: {detail}")

            result = replay(cfg, ns.master, progress, conf=conf)
    except (KeyboardInterrupt, Exception) as exc:
        return _failed(exc, cfg)
    report(console, result)
    if getattr(ns, "report", False):
        return _postmortem(ns, result)
    return 0


def _failed(exc: BaseException, cfg: ReplayConfig) -> int:
    """A replay that did not finish: one line on stderr, and its exit code (for `run` and the launcher's
    `--progress-lines` alike). Spark / Java failures arrive as Py4J errors: the log has the rest."""
    from kafkatui.history.replay.job import spark_error_line, spark_log_path
    from kafkatui.history.replay.spark_session import NoJavaError

    if isinstance(exc, ReplayError):
        _err(str(exc))
        return exc.exit_code
    if isinstance(exc, NoJavaError):
        _err(str(exc))
        return EXIT_NO_JAVA
    if isinstance(exc, KeyboardInterrupt):
        _err("interrupted")
        return 130
    log = spark_log_path(cfg)
    where = f" (Spark's log: {log})" if log.exists() else ""
    _err(f"the replay job failed: {spark_error_line(exc)}{where}")
    return EXIT_FAILED


def _postmortem(ns: argparse.Namespace, result: ReplayResult) -> int:
    """--report: the postmortem of the day just replayed (a local --out only)."""
    from pathlib import Path

    from kafkatui.report.cmd import report_dir

    out = str(result.out)
    if "://" in out and not out.startswith("file://"):
        _err(f"--report reads the output back from a local directory, not {out}: run `kafkatui report` where it is")
        return EXIT_REPORT_REMOTE
    return report_dir(Path(out.removeprefix("file://")), ns.to, ns.audit_log, ns.no_audit)


EXIT_REPORT_REMOTE = 3


def _run_with_lines(cfg: ReplayConfig, master: str | None, conf: dict[str, str]) -> int:
    """The job for the dashboard: progress as JSON Lines on stdout (`replay_progress`), errors as
    one line on stderr, the exit codes of `run`."""
    from kafkatui.history.replay.job import replay
    from kafkatui.history.replay.progress import ProgressLines

    lines = ProgressLines()
    try:
        result = replay(cfg, master, lines, on_session=lines.attach, conf=conf)
    except (KeyboardInterrupt, Exception) as exc:
        return _failed(exc, cfg)
    finally:
        lines.close()
    lines.emit(
        "done", out=str(result.out), incidents=len(result.summary["incidents"]), seconds=round(result.seconds, 1)
    )
    return 0


def submit_command(ns: argparse.Namespace, conf: dict[str, str]) -> str:
    """The spark-submit command line of this replay: the job file, and kafkatui's zip as --py-files
    (the driver imports it from there; the executors get it from the job either way)."""
    import shlex

    from kafkatui.history.replay import job as replay_job
    from kafkatui.history.replay.ship import package_zip

    args = ["spark-submit"]
    if ns.master:
        args += ["--master", ns.master]
    for key, value in conf.items():
        args += ["--conf", f"{key}={value}"]
    args += ["--py-files", str(package_zip()), replay_job.__file__, "--day", ns.day]
    if ns.history:
        args += ["--history", str(ns.history)]
    for g in ns.broker_logs:
        args += ["--broker-logs", g]
    for flag, value in (("--out", ns.out), ("--min-isr", ns.min_isr), ("--until", ns.until)):
        if value is not None:
            args += [flag, str(value)]
    if ns.tz != "UTC":
        args += ["--tz", ns.tz]
    return " ".join(shlex.quote(a) for a in args)


def main_replay(argv: list[str]) -> int:
    from kafkatui.report.cmd import add_output_arguments

    p = Parser(prog="kafkatui replay", description=DESCRIPTION)
    add_arguments(p)
    p.add_argument(
        "--report",
        action="store_true",
        help="then write the day's postmortem (Markdown and HTML, see `kafkatui report --help`) under OUT/report",
    )
    add_output_arguments(p)
    p.add_argument(
        "--progress-lines",
        action="store_true",
        help="progress as JSON Lines on stdout instead of a bar (what the dashboard's launcher reads)",
    )
    p.add_argument(
        "--spark-submit",
        action="store_true",
        help="print the spark-submit command of this replay (with kafkatui's zip as --py-files) and exit",
    )
    return run(p.parse_args(argv))
