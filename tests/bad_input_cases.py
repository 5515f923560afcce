"""The rows of the command-line bad-input table (tests/test_bad_input.py) added by issue 16, "what a
hostile user still breaks", with the user's home they run in.

Each row is a command, the exit code and the fragments of the one line on stderr. The table's test
runs it as a subprocess in a temporary home, within a memory limit and a time limit, and checks that
no file the user had changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.history.replay_days import DAY, write_recordings


@dataclass
class Home:
    """A user's home directory with the files kafkatui reads or writes, and the environment to match."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def profiles(self) -> Path:
        return self.root / ".config" / "kafkatui" / "clusters.yaml"

    @property
    def themes(self) -> Path:
        return self.root / ".config" / "kafkatui" / "themes"

    @property
    def history(self) -> Path:
        return self.root / ".local" / "state" / "kafkatui" / "history"

    def hashes(self) -> dict[str, str]:
        return {
            str(p.relative_to(self.root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
        }


@dataclass(frozen=True)
class Case:
    """One bad input: the command, what the user sees, and the exit code."""

    id: str
    args: tuple[str, ...]
    code: int
    fragments: tuple[str, ...]
    setup: Callable[[Home], None] | None = None


DEEP = "[" * 5000 + "]" * 5000
ATOMS = "a" * 40  # a topic name that (a*)*b backtracks on for minutes


def _env(name: str, value: str) -> Callable[[Home], None]:
    def setup(home: Home) -> None:
        home.env[name] = value

    return setup


def _file(name: str, text: str, mode: int = 0o600) -> Callable[[Home], None]:
    def setup(home: Home) -> None:
        path = home.root / name
        path.write_text(text)
        path.chmod(mode)

    return setup


def _profiles(text: str) -> Callable[[Home], None]:
    def setup(home: Home) -> None:
        home.profiles.write_text(text)
        home.profiles.chmod(0o600)

    return setup


def _big_profiles(home: Home) -> None:
    home.profiles.write_text("profiles:\n  dev:\n    bootstrap: a:1\n" + "# padding\n" * 200_000)


SASL_DEV = (
    "profiles:\n  dev:\n    bootstrap: a:1\n    security_protocol: SASL_PLAINTEXT\n    sasl_mechanism: PLAIN\n"
    "    sasl_username: u\n"
)
CHECK = ("check", "-b", "127.0.0.1:1")
REPLAY = ("replay", "--day", DAY, "--history", "{home}/history", "--out")


def _day(home: Home) -> None:
    write_recordings(home.root / "history")


def _day_and_notes(home: Home) -> None:
    _day(home)
    (home.root / "notes.txt").write_text("mine")


def _day_and_foreign_out(home: Home) -> None:
    _day(home)
    (home.root / "mine" / "timeline").mkdir(parents=True)
    (home.root / "mine" / "timeline" / "notes.txt").write_text("my notes")
    (home.root / "mine" / "frames.csv").write_text("a,b")


SIM = ("sim", "--base-port", "0")

ROUND_TWO = [
    # -X that librdkafka must never see (a non-UTF-8 key was a segfault in confluent-kafka)
    Case(
        "x-key-not-utf8",
        (*CHECK, "-X", "\udcff=1"),
        3,
        ("-X: bad librdkafka setting name '\\xff': setting names are plain ASCII",),
    ),
    Case(
        "x-value-not-utf8",
        (*CHECK, "-X", "client.id=\udcff\udcfe"),
        3,
        ("-X: client.id: the value '\\xff\\xfe' is not valid UTF-8",),
    ),
    Case(
        "x-secret-not-utf8-not-shown",
        (*CHECK, "-X", "sasl.password=hunter2\udcff"),
        3,
        ("-X: sasl.password: the value is not valid UTF-8",),
    ),
    Case(
        "x-value-control-character",
        (*CHECK, "-X", "client.id=a\x01b"),
        3,
        ("-X: client.id: the value 'a\\x01b' holds a control character",),
    ),
    Case(
        "profile-config-lone-surrogate",
        ("check", "--profile", "dev"),
        4,
        ("{profiles}:4: profile 'dev': config: client.id: the value 'a\\xffb' is not valid UTF-8",),
        _profiles('profiles:\n  dev:\n    bootstrap: a:1\n    config: {client.id: "a\\udcffb"}\n'),
    ),
    # unbounded or endless reads
    Case(
        "profiles-dev-zero",
        ("check", "--profile", "dev"),
        4,
        ("profiles file /dev/zero: not a regular file",),
        _env("KAFKATUI_PROFILES", "/dev/zero"),
    ),
    Case(
        "profiles-too-large",
        ("check", "--profile", "dev"),
        4,
        ("profiles file {profiles}: 2,000,036 bytes is too large (at most 1 MiB)",),
        _big_profiles,
    ),
    Case(
        "profiles-password-file-dev-zero",
        ("check", "--profile", "dev"),
        4,
        ("{profiles}:7: profile 'dev': password_file /dev/zero: not a regular file",),
        _profiles(SASL_DEV + "    password_file: /dev/zero\n"),
    ),
    Case(
        "profiles-nested-5000-deep",
        ("check", "--profile", "dev"),
        4,
        ("{profiles}:1: nested more than 100 levels deep; refused",),
        _profiles(f"profiles: {DEEP}\n"),
    ),
    Case(
        "profiles-alias-bomb",
        ("check", "--profile", "dev"),
        4,
        ("more than 1000 aliases",),
        _profiles("a: &a [x]\n" + "".join(f"b{i}: &b{i} [*a, *a]\n" for i in range(1200))),
    ),
    Case("scenario-dev-zero", (*SIM, "--scenario", "/dev/zero"), 3, ("/dev/zero: not a regular file",)),
    Case(
        "scenario-nested-5000-deep",
        (*SIM, "--scenario", "{home}/deep.yaml"),
        3,
        ("{home}/deep.yaml:1: nested more than 100 levels deep; refused",),
        _file("deep.yaml", f"topics: {DEEP}\n"),
    ),
    Case(
        "scenario-nested-in-check-demo",
        ("check", "--demo", "{home}/deep.yaml"),
        3,
        ("{home}/deep.yaml:1: nested more than 100 levels deep",),
        _file("deep.yaml", f"timeline: {DEEP}\n"),
    ),
    Case(
        "scenario-100m-partitions",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("{home}/s.yaml:2: topics[0].partitions: 100,000,000 is more than the simulator holds (at most 250,000)",),
        _file("s.yaml", "topics:\n  - {name: a, partitions: 100000000}\n"),
    ),
    Case(
        "scenario-partitions-in-all",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("{home}/s.yaml:1: 400,000 partitions in all is more than the simulator holds",),
        _file("s.yaml", "topics:\n  - {name: a, partitions: 200000}\n  - {name: b, partitions: 200000}\n"),
    ),
    Case(
        "scenario-bulk-too-big",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("bulk: 10,000 topics x 1,000 partitions is more than the simulator holds (250,000)",),
        _file("s.yaml", "bulk: {topics: 10000, partitions: 1000, rf: 3}\n"),
    ),
    Case(
        "scenario-repeat-100m-times",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("{home}/s.yaml:4: timeline[0].repeat.times: 100,000,000 is more than the simulator holds (at most 100,000)",),
        _file(
            "s.yaml",
            "topics:\n  - {name: a}\ntimeline:\n  - {at: 1s, action: crash, broker: 1, "
            "repeat: {every: 1ms, times: 100000000}}\n",
        ),
    ),
    Case(
        "scenario-at-beyond-a-year",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("timeline[0].at: duration '999999h' is longer than the simulator plays",),
        _file("s.yaml", "timeline:\n  - {at: 999999h, action: crash, broker: 1}\n"),
    ),
    Case(
        "scenario-at-overflowing-float",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("timeline[0].at: duration", "is longer than the simulator plays"),
        _file("s.yaml", "timeline:\n  - {at: " + "9" * 400 + "s, action: crash, broker: 1}\n"),
    ),
    Case(
        "scenario-brokers-too-many",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("cluster.brokers: 100,000 is more than the simulator holds (at most 1,000)",),
        _file("s.yaml", "cluster: {brokers: 100000}\n"),
    ),
    Case(
        "check-demo-at-999999h",
        ("check", "--demo", "--at", "999999h"),
        3,
        ("duration '999999h' is longer than the simulator plays",),
    ),
    Case(
        "check-demo-at-beyond-an-hour",
        ("check", "--demo", "--at", "5h"),
        3,
        ("--at 5h: check --demo plays at most 1h of a scenario",),
    ),
    # NaN, infinities and zero in every numeric option
    Case(
        "refresh-nan",
        ("--bootstrap", "127.0.0.1:1", "--refresh", "nan"),
        3,
        ("argument --refresh: must be a finite number, got 'nan'",),
    ),
    Case(
        "refresh-inf",
        ("--bootstrap", "127.0.0.1:1", "--refresh", "inf"),
        3,
        ("argument --refresh: must be a finite number, got 'inf'",),
    ),
    Case("dashboard-speed-nan", ("--demo", "--speed", "nan"), 3, ("argument --speed: must be a finite number",)),
    Case(
        "dashboard-demo-timeout-zero",
        ("--demo", "--timeout", "0"),
        3,
        ("argument --timeout: must be more than 0 and at most 3600 seconds, got 0",),
    ),
    Case("timeout-nan", (*CHECK, "--timeout", "nan"), 3, ("argument --timeout: must be a finite number, got 'nan'",)),
    Case("timeout-minus-inf", (*CHECK, "--timeout=-inf"), 3, ("argument --timeout: must be a finite number",)),
    Case(
        "check-demo-timeout-zero",
        ("check", "--demo", "--timeout", "0"),
        3,
        ("argument --timeout: must be more than 0 and at most 3600 seconds, got 0",),
    ),
    Case(
        "reassign-wait-timeout-nan",
        ("reassign", "-b", "127.0.0.1:1", "--topic", "t", "--rf", "2", "--wait-timeout", "nan"),
        3,
        ("argument --wait-timeout: must be a finite number, got 'nan'",),
    ),
    Case(
        "reassign-wait-timeout-inf",
        ("reassign", "-b", "127.0.0.1:1", "--topic", "t", "--rf", "2", "--wait-timeout", "inf"),
        3,
        ("argument --wait-timeout: must be a finite",),
    ),
    Case(
        "record-interval-nan",
        ("record", "-b", "127.0.0.1:1", "--interval", "nan"),
        3,
        ("argument --interval: must be a finite number",),
    ),
    Case(
        "record-count-negative",
        ("record", "-b", "127.0.0.1:1", "--count", "-1"),
        3,
        ("argument --count: must be between 0 and",),
    ),
    Case(
        "record-retention-days-huge",
        ("record", "-b", "127.0.0.1:1", "--retention-days", "99999999"),
        3,
        ("argument --retention-days: must be between 0 and 36,500",),
    ),
    Case("sim-speed-inf", (*SIM, "--speed", "inf"), 3, ("argument --speed: must be a finite number",)),
    Case("sim-speed-zero", (*SIM, "--speed", "0"), 3, ("argument --speed: must be more than 0",)),
    Case("sim-brokers-100000", (*SIM, "--brokers", "100000"), 3, ("argument --brokers: must be between 1 and 1,000",)),
    Case(
        "profile-timeout-nan",
        ("check", "--profile", "dev"),
        4,
        ("profile 'dev': timeout must be between 0 and 3600 seconds, got nan",),
        _profiles("profiles:\n  dev:\n    bootstrap: a:1\n    timeout: .nan\n"),
    ),
    Case(
        "scenario-rate-nan",
        (*SIM, "--scenario", "{home}/s.yaml"),
        3,
        ("{home}/s.yaml:4: load[0].rate must be a number",),
        _file("s.yaml", "topics:\n  - {name: a}\nload:\n  - {topic: a, rate: .nan}\n"),
    ),
    Case(
        "sim-history-day-100m-partitions",
        ("sim", "--history-day", "2026-11-20", "--out", "{home}/day", "--partitions", "100000000"),
        3,
        ("argument --partitions: must be between 1 and 250,000",),
    ),
    Case(
        "sim-ctl-speed-nan",
        ("sim", "ctl", "--control-port", "1", "speed", "nan"),
        3,
        ("bad arguments for speed: nan: must be a finite number",),
    ),
    Case(
        "sim-ctl-pause-inf",
        ("sim", "ctl", "--control-port", "1", "pause", "2", "inf"),
        3,
        ("bad arguments for pause: 2 inf: must be a finite number",),
    ),
    # a regex filter that backtracks for minutes is refused within its budget
    Case(
        "topic-regex-catastrophic",
        ("check", "--demo", "{home}/atoms.yaml", "--topic", "(a*)*b"),
        3,
        ("--topic: regular expression '(a*)*b' not used: it did not finish matching within 2s",),
        _file("atoms.yaml", f"topics:\n  - {{name: {ATOMS}}}\n  - {{name: orders}}\n"),
    ),
    # OAUTHBEARER without a token source never sent a request: it looked like a hung broker
    Case(
        "oauthbearer-without-token-source",
        (*CHECK, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER"),
        3,
        ("SASL OAUTHBEARER needs a token source: -X sasl.oauthbearer.method=oidc",),
    ),
    Case(
        "oauthbearer-oidc-incomplete",
        (
            *CHECK,
            "-X",
            "security.protocol=SASL_PLAINTEXT",
            "-X",
            "sasl.mechanism=OAUTHBEARER",
            "-X",
            "sasl.oauthbearer.method=oidc",
        ),
        3,
        ("sasl.oauthbearer.method=oidc needs sasl.oauthbearer.client.id and sasl.oauthbearer.token.endpoint.url",),
    ),
    # the simulator's listener security from the command line
    Case(
        "sim-sasl-without-users",
        (*SIM, "--security-protocol", "SASL_PLAINTEXT"),
        3,
        ("--security-protocol SASL_PLAINTEXT needs users: --sasl-user USER:PASSWORD or --sasl-users-file",),
    ),
    Case(
        "sim-sasl-user-without-password",
        (*SIM, "--security-protocol", "SASL_PLAINTEXT", "--sasl-user", "ops"),
        3,
        ("--sasl-user: expected USER:PASSWORD, got ops:***",),
    ),
    Case(
        "sim-sasl-users-on-plaintext",
        (*SIM, "--sasl-user", "ops:hunter2"),
        3,
        ("SASL users given but --security-protocol is PLAINTEXT",),
    ),
    Case(
        "sim-sasl-unknown-mechanism",
        (*SIM, "--security-protocol", "SASL_PLAINTEXT", "--sasl-user", "ops:hunter2", "--sasl-mechanisms", "GSSAPI"),
        3,
        ("unsupported SASL mechanism(s) GSSAPI",),
    ),
    Case(
        "sim-sasl-users-file-dev-zero",
        (*SIM, "--security-protocol", "SASL_PLAINTEXT", "--sasl-users-file", "/dev/zero"),
        3,
        ("--sasl-users-file /dev/zero: not a regular file",),
    ),
    Case(
        "sim-tls-without-cert",
        (*SIM, "--security-protocol", "SSL"),
        3,
        ("--security-protocol SSL needs --tls-cert and --tls-key",),
    ),
    Case(
        "sim-tls-cert-not-pem",
        (*SIM, "--security-protocol", "SSL", "--tls-cert", "{home}/notes.txt", "--tls-key", "{home}/notes.txt"),
        3,
        ("cannot use --tls-cert {home}/notes.txt with --tls-key {home}/notes.txt: not a PEM certificate",),
    ),
    Case(
        "sim-tls-cert-missing",
        (*SIM, "--security-protocol", "SSL", "--tls-cert", "{home}/none.pem", "--tls-key", "{home}/none.pem"),
        3,
        ("--tls-cert {home}/none.pem: no such file",),
    ),
    # replay's --out: the output error (17) naming the path, and a user's directory left as it was (the
    # third replay case, a record whose time is no number, is counted and the day still replayed:
    # tests/history/test_replay_cmd.py::test_replay_end_to_end_prints_outputs_and_incidents)
    Case(
        "replay-out-unwritable",
        (*REPLAY, "/proc/kafkatui-replay-out"),
        17,
        ("kafkatui replay: error: --out /proc/kafkatui-replay-out:",),
        _day,
    ),
    Case(
        "replay-out-under-a-file",
        (*REPLAY, "{home}/notes.txt/out"),
        17,
        ("kafkatui replay: error: --out {home}/notes.txt/out:",),
        _day_and_notes,
    ),
    Case(
        "replay-out-foreign-directory",
        (*REPLAY, "{home}/mine"),
        17,
        (
            "kafkatui replay: error: --out {home}/mine: not empty and not a replay directory (frames.csv, timeline); "
            "give a new or empty directory (nothing in it was changed)",
        ),
        _day_and_foreign_out,
    ),
]


# --------------------------------------------------------------------------- bad credentials and trust (issue 28)
# Run against the secured lab (tests/lab/test_security_bad_input.py): {sasl_ssl}, {ssl}, {mtls} are its
# listeners, {ssl_port} one SSL port, {sec} the lab's security directory (its CA, certificates, keys).
WRONG_SECRET = "Wrong-5e1f-secret"


def _wrong_secret(home: Home) -> None:
    path = home.root / "wrong.secret"
    path.write_text(WRONG_SECRET + "\n")
    path.chmod(0o600)


def _other_ca(home: Home) -> None:
    from tests.integration.tls import _ca

    _ca(home.root, "other-ca")


SCRAM_X = (
    "-X",
    "security.protocol=SASL_SSL",
    "-X",
    "sasl.mechanism=SCRAM-SHA-512",
    "-X",
    "ssl.ca.location={sec}/ca.pem",
)
TLS_X = ("-X", "security.protocol=SSL", "-X", "ssl.ca.location={sec}/ca.pem")
SECURED_CHECK = ("check", "--timeout", "5")
INVALID_CREDENTIALS = (
    "failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
)

SECURED = [
    Case(
        "wrong-password",
        (
            *SECURED_CHECK,
            "-b",
            "{sasl_ssl}",
            *SCRAM_X,
            "-X",
            "sasl.username=admin",
            "-X",
            "sasl.password_file={home}/wrong.secret",
        ),
        7,
        ("SASL authentication with 127.0.0.1:", INVALID_CREDENTIALS),
        _wrong_secret,
    ),
    Case(
        "unknown-user",
        (
            *SECURED_CHECK,
            "-b",
            "{sasl_ssl}",
            *SCRAM_X,
            "-X",
            "sasl.username=nobody",
            "-X",
            "sasl.password_file={sec}/admin.password",
        ),
        7,
        ("SASL authentication with 127.0.0.1:", INVALID_CREDENTIALS),
    ),
    Case(
        "mechanism-not-enabled",
        (
            *SECURED_CHECK,
            "-b",
            "{sasl_ssl}",
            "-X",
            "security.protocol=SASL_SSL",
            "-X",
            "sasl.mechanism=SCRAM-SHA-256",
            "-X",
            "ssl.ca.location={sec}/ca.pem",
            "-X",
            "sasl.username=admin",
            "-X",
            "sasl.password_file={sec}/admin.password",
        ),
        7,
        (
            "SASL SCRAM-SHA-256 mechanism handshake failed: Broker: Unsupported SASL mechanism: "
            "broker's supported mechanisms: SCRAM-SHA-512",
        ),
    ),
    Case(
        "untrusted-ca",
        (*SECURED_CHECK, "-b", "{ssl}", "-X", "security.protocol=SSL", "-X", "ssl.ca.location={home}/other-ca.pem"),
        7,
        (
            "TLS handshake with 127.0.0.1:",
            "certificate verify failed: unable to get local issuer certificate (set ssl.ca.location",
        ),
        _other_ca,
    ),
    Case(
        "hostname-mismatch",
        (*SECURED_CHECK, "-b", "localhost:{ssl_port}", *TLS_X),
        7,
        (
            "certificate verify failed: Hostname mismatch, certificate is not valid for 'localhost'",
            "set ssl.endpoint.identification.algorithm=none",
        ),
    ),
    Case(
        "expired-client-certificate",
        (
            *SECURED_CHECK,
            "-b",
            "{mtls}",
            *TLS_X,
            "-X",
            "ssl.certificate.location={sec}/expired.pem",
            "-X",
            "ssl.key.location={sec}/expired.key",
            "-X",
            "ssl.key.password_file={sec}/expired.key.password",
        ),
        7,
        ("the broker rejected the client certificate: ssl.certificate.location {sec}/expired.pem expired on",),
    ),
    Case(
        "mtls-without-client-certificate",
        (*SECURED_CHECK, "-b", "{mtls}", *TLS_X),
        7,
        ("the broker rejected the client certificate (none was given: this listener requires one (mTLS)",),
    ),
    Case(
        "client-key-wrong-password",
        (
            *SECURED_CHECK,
            "-b",
            "{mtls}",
            *TLS_X,
            "-X",
            "ssl.certificate.location={sec}/admin.pem",
            "-X",
            "ssl.key.location={sec}/admin.key",
            "-X",
            "ssl.key.password_file={home}/wrong.secret",
        ),
        3,
        (
            "ssl.key.location {sec}/admin.key: no private key in it that librdkafka can read",
            "ssl.key.password is wrong",
        ),
        _wrong_secret,
    ),
    Case(
        "oauth-wrong-client-secret",
        (
            *SECURED_CHECK,
            "-b",
            "{oauthbearer}",
            "-X",
            "security.protocol=SASL_SSL",
            "-X",
            "sasl.mechanism=OAUTHBEARER",
            "-X",
            "ssl.ca.location={sec}/ca.pem",
            "-X",
            "sasl.oauthbearer.method=oidc",
            "-X",
            "sasl.oauthbearer.client.id=admin",
            "-X",
            "sasl.oauthbearer.client.secret_file={home}/wrong.secret",
            "-X",
            "sasl.oauthbearer.token.endpoint.url={token_url}",
        ),
        7,
        (
            "SASL authentication with the bootstrap server failed: Failed to acquire SASL OAUTHBEARER token",
            "invalid_client",
        ),
        _wrong_secret,
    ),
]
"""Bad credentials and trust against a real secured broker (issue 28): one line, exit 7 (3 for a key that
cannot be opened: nothing was sent), no secret, no traceback, within the time limit."""
