"""Bad input, everywhere: each case gets one clear line, a meaningful exit code, no traceback,
and no file the user already had is changed.

Every command runs as a user runs it (a subprocess) with HOME and the XDG directories in a
temporary home that holds the user's files (profiles, a theme, ISR history, the audit log); they
are hashed before and after. Inputs that have no command of their own (recorded history files,
broker logs, theme files) go through their readers; the dashboard's too-small terminal through
Textual's Pilot. The servers involved listen on 127.0.0.1 and are stopped at the end.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import resource
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bad_input_cases import ROUND_TWO, Case, Home

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(120)


# --------------------------------------------------------------------------- the user's home
GOOD_PROFILES = "profiles:\n  dev:\n    bootstrap: 127.0.0.1:1\n    timeout: 2\n"
GOOD_THEME = (
    "name: mine\ndark: true\nprimary: '#0178D4'\nsecondary: '#004578'\naccent: '#ffa62b'\n"
    "foreground: '#e0e0e0'\nbackground: '#1e1e1e'\nsurface: '#262626'\npanel: '#363636'\n"
    "success: '#4EBF71'\nwarning: '#ffa62b'\nerror: '#ba3c5b'\n"
)


def make_home(tmp_path: Path) -> Home:
    root = tmp_path / "home"
    home = Home(
        root,
        {
            "HOME": str(root),
            "XDG_CONFIG_HOME": str(root / ".config"),
            "XDG_STATE_HOME": str(root / ".local" / "state"),
            "KAFKATUI_AUDIT_LOG": str(root / ".local" / "state" / "kafkatui" / "audit.jsonl"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": str(REPO),
            "LANG": "C.UTF-8",
            "COLUMNS": "200",
        },
    )
    home.profiles.parent.mkdir(parents=True)
    home.profiles.write_text(GOOD_PROFILES)
    home.profiles.chmod(0o600)
    home.themes.mkdir()
    (home.themes / "mine.yaml").write_text(GOOD_THEME)
    day = home.history / "2026-11-20"
    day.mkdir(parents=True)
    (day / "00.events.jsonl.gz").write_bytes(gzip.compress(b'{"v":1,"type":"snapshot"}\n', mtime=0))
    Path(home.env["KAFKATUI_AUDIT_LOG"]).write_text('{"v":1,"result":"ok"}\n')
    (root / "notes.txt").write_text("the user's own file\n")
    return home


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return make_home(tmp_path)


def assert_unchanged(before: dict[str, str], after: dict[str, str]) -> None:
    """Every file the user had is still there with the same bytes (new files, e.g. a log, may appear)."""
    changed = {name for name, digest in before.items() if after.get(name) != digest}
    assert not changed, f"changed or deleted: {sorted(changed)}"


def assert_one_line(stderr: str, *fragments: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


# --------------------------------------------------------------------------- local servers
def _serve(srv: socket.socket, stop: threading.Event, answer: bytes) -> None:
    srv.settimeout(0.05)
    while not stop.is_set():
        try:
            conn, _ = srv.accept()
        except OSError:
            continue
        with conn:
            conn.settimeout(2)
            try:
                conn.recv(4096)
                conn.sendall(answer)
            except OSError:
                pass


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    """An HTTP server on 127.0.0.1 answering every request with 400."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    stop = threading.Event()
    answer = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    thread = threading.Thread(target=_serve, args=(srv, stop, answer), daemon=True)
    thread.start()
    yield int(srv.getsockname()[1])
    stop.set()
    thread.join(5)
    srv.close()


# --------------------------------------------------------------------------- the command line
def _profiles(text: str) -> Callable[[Home], None]:
    def setup(home: Home) -> None:
        home.profiles.write_text(text)
        home.profiles.chmod(0o600)

    return setup


def _no_profiles(home: Home) -> None:
    home.profiles.unlink()


def _blocking_file(home: Home) -> None:
    (home.root / "history-file").write_text("a file where a directory should be\n")


ALTER = ("alter", "-b", "127.0.0.1:1", "--topic", "orders", "--dry-run", "--set")

CASES = [
    # bootstrap servers, on every command that takes them
    Case(
        "bootstrap-foo-dashboard",
        ("--bootstrap", "foo"),
        3,
        ("kafkatui: error: bad bootstrap server 'foo': no port (expected host:port, e.g. foo:9092)",),
    ),
    Case("bootstrap-foo-check", ("check", "-b", "foo"), 3, ("bad bootstrap server 'foo': no port",)),
    Case("bootstrap-foo-record", ("record", "-b", "foo", "--count", "1"), 3, ("bad bootstrap server 'foo': no port",)),
    Case(
        "bootstrap-foo-alter",
        ("alter", "-b", "foo", "--topic", "t", "--set", "min.insync.replicas=2", "--dry-run"),
        3,
        ("bad bootstrap server 'foo': no port",),
    ),
    Case(
        "bootstrap-colon",
        ("check", "--bootstrap", ":"),
        3,
        ("bad bootstrap server ':': expected host:port, e.g. kafka-1:9092",),
    ),
    Case(
        "bootstrap-port-out-of-range",
        ("check", "--bootstrap", "host:99999"),
        3,
        ("bad bootstrap server 'host:99999': port 99999 is out of range (1-65535)",),
    ),
    Case(
        "bootstrap-ipv6-bad-port",
        ("check", "--bootstrap", "[::1]:x"),
        3,
        ("bad bootstrap server '[::1]:x': port 'x' is not a number",),
    ),
    Case(
        "bootstrap-unresolvable",
        ("check", "--bootstrap", "nonexistent.invalid:9092", "--timeout", "3"),
        5,
        ("cannot resolve host name nonexistent.invalid (nonexistent.invalid:9092)",),
    ),
    Case(
        "bootstrap-unresolvable-json",
        ("check", "--json", "-b", "nonexistent.invalid:9092", "--timeout", "3"),
        5,
        ("cannot resolve host name nonexistent.invalid",),
    ),  # nothing half-written on stdout
    Case(
        "bootstrap-http-server",
        ("check", "--bootstrap", "127.0.0.1:{http}", "--timeout", "3"),
        6,
        ("127.0.0.1:{http} is not a Kafka listener: it answered the Kafka handshake with HTTP",),
    ),
    # other options
    Case("x-option-without-value", ("check", "-b", "a:1", "-X", "socket.timeout.ms"), 3, ("-X expects key=value",)),
    Case(
        "timeout-negative",
        ("check", "-b", "a:1", "--timeout", "-1"),
        3,
        ("argument --timeout: must be more than 0 and at most 3600 seconds, got -1",),
    ),
    Case(
        "topic-bad-regex",
        ("check", "-b", "a:1", "--topic", "orders["),
        3,
        ("--topic: not a regular expression: 'orders['",),
    ),
    Case("at-without-demo", ("check", "-b", "a:1", "--at", "5m"), 3, ("--at only applies to --demo",)),
    Case(
        "what-if-down-not-ids",
        ("check", "-b", "a:1", "--what-if-down", "two"),
        3,
        ("--what-if-down takes broker ids like 2,3; got 'two'",),
    ),
    Case(
        "refresh-zero",
        ("--bootstrap", "127.0.0.1:1", "--refresh", "0"),
        3,
        ("argument --refresh: must be more than 0 and at most 86400 seconds, got 0",),
    ),
    # TLS files
    Case(
        "tls-ca-file-missing",
        ("check", "-b", "127.0.0.1:1", "-X", "security.protocol=SSL", "-X", "ssl.ca.location={home}/missing-ca.pem"),
        3,
        ("invalid client settings: ssl.ca.location {home}/missing-ca.pem: No such file or directory",),
    ),
    Case(
        "tls-ca-file-not-pem",
        ("check", "-b", "127.0.0.1:1", "-X", "security.protocol=SSL", "-X", "ssl.ca.location={home}/notes.txt"),
        3,
        ("ssl.ca.location {home}/notes.txt: no CA certificate in it that librdkafka can read (PEM expected)",),
    ),
    Case(
        "tls-client-cert-not-pem",
        (
            "check",
            "-b",
            "127.0.0.1:1",
            "-X",
            "security.protocol=SSL",
            "-X",
            "ssl.certificate.location={home}/notes.txt",
            "-X",
            "ssl.key.location={home}/notes.txt",
        ),
        3,
        ("ssl.certificate.location {home}/notes.txt: no certificate in it that librdkafka can read",),
    ),
    # the simulator's ports
    Case(
        "sim-base-port-out-of-range",
        ("sim", "--base-port", "70000"),
        3,
        ("--base-port 70000 is out of range (0-65535)",),
    ),
    Case(
        "sim-last-broker-port-out-of-range",
        ("sim", "--base-port", "65534", "--brokers", "3"),
        3,
        ("--base-port 65534 with 3 brokers: broker 3's port 65536 is out of range",),
    ),
    Case(
        "sim-ctl-port-out-of-range",
        ("sim", "ctl", "--control-port", "99999", "status"),
        3,
        ("--control-port 99999 is out of range (0-65535)",),
    ),
    # profiles
    Case(
        "profiles-yaml-syntax-error",
        ("check", "--profile", "dev"),
        4,
        ("{profiles}:", "YAML syntax error"),
        _profiles("profiles:\n  dev: {bootstrap: [a:1\n"),
    ),
    Case(
        "profiles-wrong-type",
        ("check", "--profile", "dev"),
        4,
        ("{profiles}:4: profile 'dev': writes must be true or false",),
        _profiles("profiles:\n  dev:\n    bootstrap: a:1\n    writes: maybe\n"),
    ),
    Case(
        "profiles-unknown-key",
        ("check", "--profile", "dev"),
        4,
        ("{profiles}:4: profile 'dev': unknown key 'bootsrap' (known keys: bootstrap,",),
        _profiles("profiles:\n  dev:\n    bootstrap: a:1\n    bootsrap: b:2\n"),
    ),
    Case(
        "profiles-password-in-yaml",
        ("check", "--profile", "dev"),
        4,
        ("passwords do not belong in the profiles file",),
        _profiles("profiles:\n  dev:\n    bootstrap: a:1\n    password: hunter2-in-yaml\n"),
    ),
    Case(
        "profiles-missing-file",
        ("check", "--profile", "dev"),
        4,
        ("profiles file {profiles} does not exist",),
        _no_profiles,
    ),
    Case(
        "profiles-unknown-profile",
        ("check", "--profile", "prod"),
        4,
        ("no profile 'prod' in {profiles} (known profiles: dev)",),
    ),
    Case(
        "profiles-password-env-unset",
        ("check", "--profile", "dev"),
        4,
        ("environment variable KAFKATUI_TEST_UNSET_PW (password_env) is not set",),
        _profiles(
            "profiles:\n  dev:\n    bootstrap: a:1\n    security_protocol: SASL_PLAINTEXT\n"
            "    sasl_mechanism: PLAIN\n    sasl_username: u\n    password_env: KAFKATUI_TEST_UNSET_PW\n"
        ),
    ),
    # recording
    Case(
        "record-dir-is-under-a-file",
        ("record", "-b", "127.0.0.1:1", "--dir", "{home}/history-file/h", "--count", "1"),
        17,
        ("cannot create history directory {home}/history-file/h: Not a directory",),
        _blocking_file,
    ),
    Case(
        "record-interval-zero",
        ("record", "-b", "127.0.0.1:1", "--interval", "0"),
        3,
        ("argument --interval: must be more than 0",),
    ),
    Case("record-empty-dir", ("record", "-b", "127.0.0.1:1", "--dir", ""), 3, ("--dir: empty",)),
    # alter values: out of range, wrong type, not alterable
    Case("alter-min-isr-zero", (*ALTER, "min.insync.replicas=0"), 3, ("min.insync.replicas must be >= 1, got 0",)),
    Case(
        "alter-min-isr-negative",
        (*ALTER, "min.insync.replicas=-1"),
        3,
        ("min.insync.replicas must be a whole number >= 1, got '-1'",),
    ),
    Case(
        "alter-min-isr-text",
        (*ALTER, "min.insync.replicas=two"),
        3,
        ("min.insync.replicas must be a whole number >= 1, got 'two'",),
    ),
    Case(
        "alter-min-isr-fraction",
        (*ALTER, "min.insync.replicas=1.5"),
        3,
        ("min.insync.replicas must be a whole number >= 1, got '1.5'",),
    ),
    Case(
        "alter-min-isr-beyond-int32",
        (*ALTER, "min.insync.replicas=99999999999"),
        3,
        ("min.insync.replicas must be at most 2147483647 (a Kafka INT), got 99999999999",),
    ),
    Case(
        "alter-unclean-not-boolean",
        (*ALTER, "unclean.leader.election.enable=maybe"),
        3,
        ("unclean.leader.election.enable must be true or false, got 'maybe'",),
    ),
    Case("alter-static-key", (*ALTER, "replica.lag.time.max.ms=1000"), 3, ("replica.lag.time.max.ms",)),
    Case("alter-unknown-key", (*ALTER, "retention.ms=1000"), 3, ("kafkatui does not alter 'retention.ms'",)),
    Case("alter-set-without-value", (*ALTER, "min.insync.replicas"), 3, ("--set expects KEY=VALUE",)),
]
CASES += ROUND_TWO  # issue 16: what a hostile user still broke (tests/bad_input_cases.py)


MEMORY_LIMIT = 1536 << 20
"""Address space each command may use: /dev/zero read whole, or 100,000,000 partitions, die here."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_cli(home: Home, args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, within MEMORY_LIMIT and `timeout` seconds (bounded work)."""
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=home.env,
        cwd=home.root,
        preexec_fn=_limit_memory,
        errors="backslashreplace",
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_command_line_input(case: Case, home: Home, http_port: int) -> None:
    if case.setup is not None:
        case.setup(home)
    subs = {"http": str(http_port), "home": str(home.root), "profiles": str(home.profiles)}
    before = home.hashes()
    proc = run_cli(home, [a.format(**subs) for a in case.args])
    line = assert_one_line(proc.stderr, *(f.format(**subs) for f in case.fragments))
    assert line.startswith("kafkatui") and "error" in line
    assert proc.returncode == case.code, (proc.returncode, line)
    assert proc.stdout == ""
    assert "hunter2" not in proc.stderr
    assert_unchanged(before, home.hashes())


def test_record_into_a_directory_that_refuses_files(home: Home) -> None:
    """An existing directory nobody may write into (even root cannot add files to /sys/kernel)."""
    target = Path("/sys/kernel") if os.geteuid() == 0 else home.root / "read-only"
    if target != Path("/sys/kernel"):
        target.mkdir()
        target.chmod(0o555)
    elif not target.is_dir() or os.access(target, os.W_OK) and _can_create_in(target):
        pytest.skip(reason="no directory that refuses files on this machine")
    before = home.hashes()
    proc = run_cli(home, ["record", "-b", "127.0.0.1:1", "--dir", str(target), "--count", "1"])
    assert_one_line(proc.stderr, f"kafkatui: error: cannot write into history directory {target}: Permission denied")
    assert proc.returncode == 17
    assert_unchanged(before, home.hashes())


def _can_create_in(directory: Path) -> bool:
    probe = directory / ".kafkatui-test-probe"
    try:
        probe.touch()
    except OSError:
        return False
    probe.unlink()
    return True


# --------------------------------------------------------------------------- recorded history
def _member(*lines: bytes) -> bytes:
    return gzip.compress(b"".join(line + b"\n" for line in lines), mtime=0)


GOOD_LINES = [b'{"v":1,"type":"change","n":%d}' % i for i in range(50)]


def _history_case(name: str, home: Home) -> tuple[str, dict[str, int]]:
    """Write one damaged day; returns the day and the ReadStats counts it must give."""
    day = "2026-11-21"
    folder = home.history / day
    folder.mkdir(parents=True)
    good = _member(*GOOD_LINES)
    if name == "truncated-gzip":
        (folder / "00.events.jsonl.gz").write_bytes(good[: len(good) // 2])
        return day, {"files": 1, "torn": 1}
    if name == "random-bytes":
        (folder / "01.events.jsonl.gz").write_bytes(bytes(range(256)) * 8)
        return day, {"files": 1, "records": 0, "garbled": 1}
    if name == "future-schema-version":
        (folder / "02.events.jsonl.gz").write_bytes(_member(b'{"v":99,"type":"change"}', *GOOD_LINES[:3]))
        return day, {"files": 1, "records": 3, "future_version": 1}
    if name == "not-json-lines":
        (folder / "03.events.jsonl.gz").write_bytes(_member(b"hello", b"[1,2]", b'{"v":"1"}', GOOD_LINES[0]))
        return day, {"files": 1, "records": 1, "garbled": 3}
    if name == "empty-file":
        (folder / "04.events.jsonl.gz").write_bytes(b"")
        return day, {"files": 1, "records": 0}
    if name == "empty-day":
        return day, {"files": 0, "records": 0}
    assert name == "missing-day"
    folder.rmdir()
    return day, {"files": 0, "records": 0}


@pytest.mark.parametrize(
    "name",
    [
        "truncated-gzip",
        "random-bytes",
        "future-schema-version",
        "not-json-lines",
        "empty-file",
        "empty-day",
        "missing-day",
    ],
)
def test_damaged_history_is_read_around_and_counted(name: str, home: Home) -> None:
    from kafkatui.history.record.recorder import read_day

    day, expected = _history_case(name, home)
    before = home.hashes()
    records, stats = read_day(home.history, day)  # never raises
    for key, value in expected.items():
        assert getattr(stats, key) == value, (key, stats)
    assert len(records) == stats.records
    assert all(r["v"] == 1 for r in records)
    if name == "truncated-gzip":
        assert 0 < stats.records < len(GOOD_LINES)  # what was complete is kept
    assert_unchanged(before, home.hashes())


def test_a_bad_day_name_is_one_clear_error(home: Home) -> None:
    from kafkatui.history.record.recorder import read_day

    with pytest.raises(ValueError) as info:
        read_day(home.history, "yesterday")
    assert "yesterday" in str(info.value) and "\n" not in str(info.value)


# --------------------------------------------------------------------------- broker logs
JSON_LINE = (
    b'{"time":"2026-11-20T02:13:44Z","level":"INFO","msg":"[Partition orders-0 broker=1] ISR updated to 1,2 '
    b'and version updated to 5"}\n'
)
SYSLOG_LINE = b"Nov 20 02:13:44 kafka-1 kafka[812]: [Partition orders-0 broker=1] Shrinking ISR from 1,2,3 to 1,2\n"


@pytest.mark.parametrize(
    ("name", "content", "unparsed", "skipped", "problem"),
    [
        ("json-structured-logs", JSON_LINE * 3, 3, 0, None),
        ("syslog-prefix", SYSLOG_LINE, 1, 0, None),
        ("not-about-isr", b"[2026-11-20 02:13:44,123] INFO Kafka version: 3.7.0 (org.apache.kafka)\n" * 5, 0, 5, None),
        ("binary", bytes(range(256)) * 4, 0, None, None),
        (
            "truncated-gzip",
            gzip.compress(b"[2026-11-20 02:13:44,123] INFO x\n" * 200)[:40],
            0,
            None,
            "damaged or truncated gzip",
        ),
    ],
)
def test_broker_logs_in_an_unknown_format_are_reported_not_fatal(
    name: str, content: bytes, unparsed: int, skipped: int | None, problem: str | None, home: Home
) -> None:
    from kafkatui.history.logparse import parse_logs

    logs = home.root / "logs"
    logs.mkdir()
    path = logs / ("server.log.1.gz" if name == "truncated-gzip" else "server.log")
    path.write_bytes(content)
    before = home.hashes()
    events, report = parse_logs(str(logs / "server.log*"))  # never raises
    assert events == [] and report.files == 1 and report.events == 0
    assert report.unparsed == unparsed, report.summary()
    if skipped is not None:
        assert report.skipped == skipped, report.summary()
    if unparsed:  # the report shows where and what, so the user can tell us the format
        assert report.unparsed_examples[0].startswith(f"{path}:1: ")
    if problem is not None:
        assert len(report.problems) == 1 and problem in report.problems[0] and "\n" not in report.problems[0]
    else:
        assert report.problems == []
    assert_unchanged(before, home.hashes())


def test_a_log_pattern_matching_nothing_is_a_problem_not_an_error(home: Home) -> None:
    from kafkatui.history.logparse import parse_logs

    events, report = parse_logs(str(home.root / "nowhere" / "server.log*"))
    assert events == [] and report.problems == [f"{home.root / 'nowhere' / 'server.log*'}: no file matches"]


# --------------------------------------------------------------------------- themes
BROKEN_THEMES = {
    "syntax.yaml": ("name: x\nprimary: [\n", ":3: invalid YAML: expected the node content"),
    "list.yaml": ("- name\n- primary\n", ": a theme is a mapping of name, dark and colours"),
    "unknown-key.yaml": ("name: y\nprimary: '#ffffff'\nprimray: '#000000'\n", ": unknown key(s) primray"),
    "wrong-type.yaml": ("name: 12\nprimary: '#ffffff'\n", ": 'name' and 'primary' are required strings"),
    "bad-colour.yaml": ("name: z\nprimary: not-a-colour\n", ": primary: 'not-a-colour' is not a colour"),
    "binary.yaml": (None, ": cannot read"),
    # issue 16: these crashed the first screen with a stylesheet dump, or hung the start
    "variables-list.yaml": (
        "name: vl\nprimary: '#ffffff'\nvariables: [a, b]\n",
        ": variables: must be a mapping of names to colours",
    ),
    "variables-int.yaml": ("name: vi\nprimary: '#ffffff'\nvariables: 5\n", "not int 5"),
    "variables-bad-colour.yaml": (
        "name: vc\nprimary: '#ffffff'\nvariables: {block-cursor-background: notacolour}\n",
        ": variables: block-cursor-background: 'notacolour' is not a colour",
    ),
    "variables-bad-style.yaml": (
        "name: vs\nprimary: '#ffffff'\nvariables: {block-cursor-text-style: loud}\n",
        ": variables: block-cursor-text-style: 'loud' is not a text style",
    ),
    "nested-5000.yaml": (
        "name: deep\nprimary: '#ffffff'\nvariables: " + "[" * 5000 + "]" * 5000 + "\n",
        ":3: nested more than 100 levels deep",
    ),
    "fifo.yaml": ("FIFO", ": not a regular file (a FIFO, socket or device); skipped"),
}


def _write_broken_themes(folder: Path) -> None:
    for name, (text, _) in BROKEN_THEMES.items():
        if text is None:
            (folder / name).write_bytes(b"\xff\xfe\x00garbage")
        elif text == "FIFO":
            os.mkfifo(folder / name)  # opening it would block until a writer comes: never opened
        else:
            (folder / name).write_text(text)


def test_broken_theme_files_are_reported_and_skipped(home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    from kafkatui.tui.themes import load_themes

    _write_broken_themes(home.themes)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home.root / ".config"))
    monkeypatch.delenv("KAFKATUI_THEMES", raising=False)
    before = home.hashes()
    themes, problems = load_themes()
    assert "mine" in {t.name for t in themes}  # the good one still loads
    assert len(problems) == len(BROKEN_THEMES)
    for name, (_, fragment) in BROKEN_THEMES.items():
        (line,) = [p for p in problems if p.startswith(str(home.themes / name))]
        assert fragment in line and "\n" not in line and "Traceback" not in line
    assert_unchanged(before, home.hashes())


# --------------------------------------------------------------------------- the dashboard
def _app(**kwargs: Any) -> Any:
    from kafkatui.tui.app import KafkaTuiApp
    from kafkatui.tui.feed import Feed
    from tests.tui.test_screens import FIXED, FakeSource, incident

    feed = Feed(FakeSource(incident()), bootstrap="kafka:9092", clock=lambda: FIXED)
    return KafkaTuiApp(feed, auto_refresh=False, clock=lambda: FIXED, source_label="test", **kwargs)


def test_theme_problems_and_an_unknown_theme_are_shown_in_the_dashboard(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_broken_themes(home.themes)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home.root / ".config"))
    monkeypatch.delenv("KAFKATUI_THEMES", raising=False)
    app = _app(theme="no-such-theme")
    messages: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            messages.extend(str(n.message) for n in app._notifications)
            assert app.theme == "kafkatui-dark"

    asyncio.run(main())
    assert "unknown theme 'no-such-theme'; using kafkatui-dark" in messages
    assert sum(str(home.themes) in m for m in messages) == len(BROKEN_THEMES)


SCREENS: dict[str, Callable[[Any], None]] = {
    "overview": lambda app: None,
    "topic": lambda app: app.open_topic("orders"),
    "partition": lambda app: app.open_partition("orders", 1),
    "broker": lambda app: app.open_broker(1),
    "findings": lambda app: app.action_findings(),
    "what-if": lambda app: app.action_what_if(),
    "help": lambda app: app.action_help(),
}


@pytest.mark.parametrize("size", [(40, 12), (59, 40), (120, 15)])
def test_every_screen_says_it_needs_more_room(size: tuple[int, int]) -> None:
    """Below 60x16 each screen shows one message instead of its tables (and comes back when enlarged)."""
    from textual.widgets import Static

    from kafkatui.tui.screens.overview import OverviewScreen

    seen: dict[str, str] = {}

    async def main() -> None:
        app = _app()
        async with app.run_test(size=size) as pilot:
            for _ in range(200):
                if app.state.snapshot is not None and isinstance(app.screen, OverviewScreen):
                    break
                await pilot.pause(0.05)
            for name, open_screen in SCREENS.items():
                open_screen(app)
                await pilot.pause()
                screen = app.screen
                assert screen.has_class("too-small"), name
                message = screen.query_one("#too-small", Static)
                assert message.display and message.region.width > 0, name
                seen[name] = str(message.render())
                body = screen.query_one("#screen-body" if name != "help" else "#help-box")
                assert body.region.area == 0, name  # the tables are not drawn at all
                if name != "overview":
                    await pilot.press("escape")
                    await pilot.pause()
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert not app.screen.has_class("too-small")

    asyncio.run(main())
    w, h = size
    for name, text in seen.items():
        assert f"kafkatui needs at least 60x16 characters; this terminal is {w}x{h}" in " ".join(text.split()), name
