"""What a user sees when connecting goes wrong: one line and a distinct exit code each.

Unit tests of the settings, profiles and error classification, plus loopback servers on
127.0.0.1 (a closed port, an HTTP responder, a server that hangs up, a silent one, a TLS server
with a self-signed certificate) that are always stopped.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaError

from kafkatui.kafka.diagnose import _best
from kafkatui.kafka.errors import (
    EXIT_CODES,
    AuthenticationError,
    AuthorizationDeniedError,
    CannotConnectError,
    KafkaTuiError,
    MetadataTimeoutError,
    NotKafkaError,
    ProfileError,
    UsageError,
)
from kafkatui.kafka.profiles import list_profiles, load_profile, profiles_path, resolve_connection
from kafkatui.kafka.settings import ConnectionSettings, Secret, parse_bootstrap, parse_x_options
from kafkatui.kafka.source import ClientEvent, KafkaClusterSource, classify_event, classify_kafka_error
from kafkatui.sim.runner import SimRunner
from tests.ci import cannot_run

pytestmark = pytest.mark.timeout(60)


def assert_one_line(err: KafkaTuiError, code: int, *fragments: str) -> None:
    text = str(err)
    assert "\n" not in text and text == err.message and text.strip() == text
    assert err.exit_code == code, (err.exit_code, text)
    for fragment in fragments:
        assert fragment in text, (fragment, text)


# --------------------------------------------------------------------------- exit codes
def test_exit_codes_are_distinct_and_documented() -> None:
    classes = [
        UsageError,
        ProfileError,
        CannotConnectError,
        NotKafkaError,
        AuthenticationError,
        MetadataTimeoutError,
        AuthorizationDeniedError,
        KafkaTuiError,
    ]
    codes = [c.exit_code for c in classes]
    assert codes == [3, 4, 5, 6, 7, 8, 9, 10]
    assert len(set(codes)) == len(codes) and not {0, 1, 2} & set(codes)
    assert sorted(EXIT_CODES) == [0, 1, 2, *codes]
    import kafkatui.kafka.errors as module

    for cls in classes:
        assert cls.__name__ in (module.__doc__ or "")


def test_messages_are_flattened_to_one_line() -> None:
    err = CannotConnectError("first line\nsecond\tline  ")
    assert str(err) == "first line second line"


# --------------------------------------------------------------------------- bootstrap and -X
@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("foo", "bad bootstrap server 'foo': no port (expected host:port, e.g. foo:9092)"),
        (":", "bad bootstrap server ':': expected host:port"),
        ("host:99999", "bad bootstrap server 'host:99999': port 99999 is out of range (1-65535)"),
        ("[::1]:x", "bad bootstrap server '[::1]:x': port 'x' is not a number"),
        ("", "no bootstrap server given"),
        (" , ", "no bootstrap server given"),
        ("host:", "bad bootstrap server 'host:': no port"),
        (":9092", "bad bootstrap server ':9092': no host"),
        ("::1:9092", "IPv6 addresses need brackets"),
        ("[::1", "unclosed '['"),
        ("[nope]:9092", "'nope' is not an IPv6 address"),
        ("PLAINTEXT://kafka:9092", "without the PLAINTEXT:// prefix"),
        ("bad host:9092", "'bad host' is not a valid host name"),
        ("kafka:-1", "port '-1' is not a number"),
    ],
)
def test_bad_bootstrap_strings(value: str, fragment: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_bootstrap(value)
    assert_one_line(info.value, 3, fragment)


def test_good_bootstrap_strings() -> None:
    assert parse_bootstrap("kafka-1:9092, kafka-2.prod:9093,[::1]:9092") == (
        "kafka-1:9092",
        "kafka-2.prod:9093",
        "[::1]:9092",
    )
    assert parse_bootstrap(["a:1,b:2", "a:1", "10.0.0.1:9092"]) == ("a:1", "b:2", "10.0.0.1:9092")


def test_x_options() -> None:
    extra = parse_x_options(["socket.timeout.ms=10000", "sasl.password=s3cr=t", "client.rack="])
    assert extra["socket.timeout.ms"] == "10000" and extra["client.rack"] == ""
    assert isinstance(extra["sasl.password"], Secret) and extra["sasl.password"].reveal() == "s3cr=t"
    for bad, fragment in [
        ("foo", "-X expects key=value"),
        ("=value", "-X expects key=value"),
        ("bootstrap.servers=x:1", "set bootstrap.servers with --bootstrap"),
        ("error_cb=x", "error_cb cannot be set here"),
    ]:
        with pytest.raises(UsageError) as info:
            parse_x_options([bad])
        assert_one_line(info.value, 3, fragment)
    with pytest.raises(UsageError) as info:
        parse_x_options(["=hunter2"])
    assert "hunter2" not in str(info.value)


def test_unknown_librdkafka_setting_is_a_usage_error() -> None:
    settings = ConnectionSettings("127.0.0.1:9", extra={"no.such.setting": "1"})
    with pytest.raises(UsageError) as info:
        KafkaClusterSource(settings)
    assert_one_line(info.value, 3, "invalid client settings", "no.such.setting")


def test_settings_validation() -> None:
    with pytest.raises(UsageError, match="unknown security protocol 'TLS'"):
        ConnectionSettings("a:1", security_protocol="TLS")
    with pytest.raises(UsageError, match="SASL mechanism is set but the security protocol is PLAINTEXT"):
        ConnectionSettings("a:1", sasl_mechanism="PLAIN")
    with pytest.raises(UsageError, match="needs a SASL mechanism"):
        ConnectionSettings("a:1", security_protocol="SASL_SSL")
    with pytest.raises(UsageError, match="needs a password"):
        ConnectionSettings("a:1", security_protocol="sasl_ssl", sasl_mechanism="scram-sha-512", sasl_username="ops")
    with pytest.raises(UsageError, match="timeout must be between"):
        ConnectionSettings("a:1", timeout=0)


def test_secrets_never_show() -> None:
    settings = ConnectionSettings(
        "a:1",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="ops",
        sasl_password=Secret("hunter2-pw"),
        ssl_key_password="key-pw-77",
        extra={"sasl.oauthbearer.client.secret": "oauth-s3cret", "socket.timeout.ms": 5000},
    )
    for text in (repr(settings), str(settings), repr(settings.sasl_password), str(settings.sasl_password)):
        for secret in ("hunter2-pw", "key-pw-77", "oauth-s3cret"):
            assert secret not in text
    assert settings.to_confluent()["sasl.password"] == "hunter2-pw"
    assert settings.to_confluent()["socket.timeout.ms"] == "5000"
    assert sorted(settings.secrets()) == ["hunter2-pw", "key-pw-77", "oauth-s3cret"]


def test_kafka_python_settings_follow_the_librdkafka_ones() -> None:
    settings = ConnectionSettings(
        "k1:9093,k2:9093",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="ops",
        sasl_password="pw",
        ssl_ca="/etc/ca.pem",
        ssl_cert="/etc/c.pem",
        ssl_key="/etc/k.pem",
        ssl_key_password="kpw",
        timeout=7,
        client_id="me",
    )
    kp = settings.to_kafka_python()
    assert kp["bootstrap_servers"] == ["k1:9093", "k2:9093"]
    assert (kp["security_protocol"], kp["sasl_mechanism"]) == ("SASL_SSL", "SCRAM-SHA-512")
    assert (kp["sasl_plain_username"], kp["sasl_plain_password"]) == ("ops", "pw")
    assert (kp["ssl_cafile"], kp["ssl_certfile"], kp["ssl_keyfile"], kp["ssl_password"]) == (
        "/etc/ca.pem",
        "/etc/c.pem",
        "/etc/k.pem",
        "kpw",
    )
    assert kp["request_timeout_ms"] == 7000 and kp["client_id"] == "me"
    # -X overrides reach kafka-python too, as kcat users expect
    x = ConnectionSettings(
        "k1:9092",
        extra=parse_x_options(
            [
                "security.protocol=sasl_plaintext",
                "sasl.mechanisms=PLAIN",
                "sasl.username=u",
                "sasl.password=p",
                "ssl.endpoint.identification.algorithm=none",
            ]
        ),
    ).to_kafka_python()
    assert (x["security_protocol"], x["sasl_mechanism"], x["sasl_plain_username"], x["sasl_plain_password"]) == (
        "SASL_PLAINTEXT",
        "PLAIN",
        "u",
        "p",
    )
    assert x["ssl_check_hostname"] is False


# --------------------------------------------------------------------------- classification
def event(name: str, text: str) -> ClientEvent:
    return ClientEvent(getattr(KafkaError, name), name, text, 0.0)


def test_classify_librdkafka_events() -> None:
    cases = [
        (
            event(
                "_TRANSPORT",
                "10.1.2.3:9092/bootstrap: Connect to ipv4#10.1.2.3:9092 failed: Connection refused "
                "(after 0ms in state CONNECT)",
            ),
            5,
            "cannot connect to 10.1.2.3:9092: connection refused",
        ),
        (
            event(
                "_RESOLVE",
                "kafka-9:9092/bootstrap: Failed to resolve 'kafka-9:9092': Name or service not known "
                "(after 1ms in state CONNECT)",
            ),
            5,
            "cannot resolve host name kafka-9 (kafka-9:9092)",
        ),
        (
            event(
                "_TRANSPORT",
                "kafka-1:9092/1: Connect to ipv4#10.0.0.1:9092 failed: Connection timed out "
                "(after 30005ms in state CONNECT)",
            ),
            5,
            "connection timed out",
        ),
        (
            event(
                "_BAD_MSG",
                "127.0.0.1:8080/bootstrap: Receive failed: Invalid response size 1213486160 "
                "(0..100000000): increase receive.message.max.bytes (after 3ms in state APIVERSION_QUERY)",
            ),
            6,
            "127.0.0.1:8080 is not a Kafka listener",
            "HTTP",
        ),
        (
            event(
                "_BAD_MSG", f"k:9093/bootstrap: Receive failed: Invalid response size {0x15030300 + 2} (0..100000000)"
            ),
            6,
            "TLS alert",
            "SSL or SASL_SSL",
        ),
        (
            event(
                "_TRANSPORT",
                "k:9093/bootstrap: Disconnected while requesting ApiVersion: might be caused by incorrect "
                "security.protocol configuration (connecting to a SSL listener?) or broker version is < 0.10 "
                "(see api.version.request) (after 1ms in state APIVERSION_QUERY)",
            ),
            6,
            "k:9093 closed the connection during the Kafka handshake",
        ),
        (
            event(
                "_SSL",
                "ssl://k:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::certificate verify "
                "failed: broker certificate could not be verified (after 10ms in state SSL_HANDSHAKE)",
            ),
            7,
            "TLS handshake with k:9093 failed",
            "certificate verify failed",
        ),
        (
            event(
                "_AUTHENTICATION",
                "sasl_ssl://k:9093/bootstrap: SASL authentication error: Authentication failed during "
                "authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 "
                "(after 20ms in state AUTH_REQ)",
            ),
            7,
            "SASL authentication with k:9093 failed",
            "invalid credentials",
        ),
    ]
    for case in cases:
        ev, code, fragments = case[0], case[1], case[2:]
        assert isinstance(ev, ClientEvent) and isinstance(code, int)
        err = classify_event(ev)
        assert err is not None, ev
        assert_one_line(err, code, *(str(f) for f in fragments))
    assert classify_event(event("_ALL_BROKERS_DOWN", "1/1 brokers are down")) is None


def test_brokers_that_crash_together_are_refused_not_a_wrong_listener() -> None:
    """A connection closed in the handshake tells less than a refused port: brokers crashing together
    close (or accept and drop) the connections in flight before their ports refuse; only when every
    failing server closes in the handshake is it a listener that does not speak Kafka as configured."""
    closed = (
        "127.0.0.1:{}/bootstrap: Disconnected while requesting ApiVersion: might be caused by incorrect "
        "security.protocol configuration (connecting to a SSL listener?) or broker version is < 0.10 "
        "(see api.version.request) (after 9ms in state APIVERSION_QUERY)"
    )
    refused = (
        "127.0.0.1:{0}/bootstrap: Connect to ipv4#127.0.0.1:{0} failed: Connection refused (after 0ms in state CONNECT)"
    )
    crashed = [event("_TRANSPORT", closed.format(9001)), event("_TRANSPORT", refused.format(9002))]
    crashed.append(event("_TRANSPORT", refused.format(9003)))
    found = _best(crashed, "PLAINTEXT")
    assert found is not None
    assert_one_line(found[0], 5, "cannot connect to 127.0.0.1:9002: connection refused")
    assert found[1] == 3
    later = _best([event("_TRANSPORT", closed.format(9001)), event("_TRANSPORT", refused.format(9001))], "PLAINTEXT")
    assert later is not None and "connection refused" in str(later[0])  # the port refuses now
    wrong = _best([event("_TRANSPORT", closed.format(p)) for p in (9001, 9002)], "PLAINTEXT")
    assert wrong is not None
    assert_one_line(wrong[0], 6, "127.0.0.1:9001 closed the connection during the Kafka handshake")
    assert wrong[1] == 2


def test_classify_request_errors() -> None:
    denied = classify_kafka_error(KafkaError(KafkaError.CLUSTER_AUTHORIZATION_FAILED), "altering configs")
    assert_one_line(denied, 9, "altering configs: not authorized (CLUSTER_AUTHORIZATION_FAILED")
    timed_out = classify_kafka_error(KafkaError(KafkaError._TIMED_OUT), "reading metadata", 5.0)
    assert_one_line(timed_out, 8, "no answer within 5s")
    assert classify_kafka_error(KafkaError(KafkaError._SSL, "bad cert"), "x").exit_code == 7


# --------------------------------------------------------------------------- loopback servers
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def tcp_server() -> Iterator[Callable[[Callable[[socket.socket], None]], int]]:
    """Start 127.0.0.1 servers running `handle(conn)` per connection; all stopped at the end."""
    stops: list[Callable[[], None]] = []

    def start(handle: Callable[[socket.socket], None]) -> int:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
        srv.settimeout(0.05)
        stop = threading.Event()
        held: list[socket.socket] = []

        def run() -> None:
            while not stop.is_set():
                try:
                    conn, _ = srv.accept()
                except OSError:
                    continue
                held.append(conn)
                with contextlib.suppress(OSError):
                    handle(conn)
            for c in held:
                c.close()
            srv.close()

        thread = threading.Thread(target=run, name="test-tcp-server", daemon=True)
        thread.start()

        def halt() -> None:
            stop.set()
            thread.join(5)

        stops.append(halt)
        port: int = srv.getsockname()[1]
        return port

    yield start
    for halt in stops:
        halt()


def connect_error(bootstrap: str, timeout: float = 4.0, **kwargs: object) -> tuple[KafkaTuiError, float]:
    start = time.monotonic()
    settings = ConnectionSettings(bootstrap, timeout=timeout, **kwargs)  # type: ignore[arg-type]
    with KafkaClusterSource(settings) as source, pytest.raises(KafkaTuiError) as info:
        source.snapshot()
    return info.value, time.monotonic() - start


def test_closed_port_is_connection_refused() -> None:
    port = free_port()  # nothing listens there
    err, elapsed = connect_error(f"127.0.0.1:{port}")
    assert_one_line(err, 5, f"cannot connect to 127.0.0.1:{port}: connection refused")
    assert elapsed < 3.0  # fails fast, well before the 4 s timeout


def test_all_bootstrap_servers_refused() -> None:
    err, _ = connect_error(f"127.0.0.1:{free_port()},127.0.0.1:{free_port()}")
    assert_one_line(err, 5, "connection refused", "(2 of 2 bootstrap servers failing)")


def test_dns_failure() -> None:
    err, elapsed = connect_error("no-such-host.invalid:9092")
    assert_one_line(err, 5, "cannot resolve host name no-such-host.invalid (no-such-host.invalid:9092)")
    assert elapsed < 3.5


def test_http_server_is_not_kafka(tcp_server: Callable[[Callable[[socket.socket], None]], int]) -> None:
    def http(conn: socket.socket) -> None:
        conn.settimeout(2)
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()

    port = tcp_server(http)
    err, elapsed = connect_error(f"127.0.0.1:{port}")
    assert_one_line(err, 6, f"127.0.0.1:{port} is not a Kafka listener", "HTTP")
    assert elapsed < 3.0


def test_server_that_hangs_up_is_not_kafka(tcp_server: Callable[[Callable[[socket.socket], None]], int]) -> None:
    port = tcp_server(lambda conn: conn.close())
    err, _ = connect_error(f"127.0.0.1:{port}")
    assert_one_line(err, 6, f"127.0.0.1:{port}", "during the Kafka handshake: not a Kafka listener")


def test_silent_server_is_a_metadata_timeout(tcp_server: Callable[[Callable[[socket.socket], None]], int]) -> None:
    port = tcp_server(lambda conn: None)  # accepts, never answers (like a hung broker)
    err, elapsed = connect_error(f"127.0.0.1:{port}", timeout=1.5)
    assert_one_line(err, 8, f"no answer from 127.0.0.1:{port} within 1.5s")
    assert 1.4 < elapsed < 4.0


def test_sasl_against_a_listener_without_sasl_is_an_authentication_error() -> None:
    lines: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.Logger("capture", logging.DEBUG)
    logger.addHandler(Capture())
    with SimRunner(brokers=1) as sim:
        settings = ConnectionSettings(
            sim.bootstrap,
            timeout=4,
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism="PLAIN",
            sasl_username="ops",
            sasl_password="hunter2-pw",
            extra={"debug": "all"},
        )
        with KafkaClusterSource(settings, librdkafka_logger=logger) as source, pytest.raises(KafkaTuiError) as info:
            source.snapshot()
    assert_one_line(info.value, 7, f"SASL authentication with {sim.bootstrap} failed")
    assert len(lines) > 100  # librdkafka's debug lines reach the caller's logger...
    assert not any("hunter2-pw" in line for line in [str(info.value), *lines])  # ...without the password


def test_tls_against_a_plaintext_listener_is_a_tls_error() -> None:
    with SimRunner(brokers=1) as sim:
        err, _ = connect_error(sim.bootstrap, security_protocol="SSL")
    assert_one_line(err, 7, f"TLS handshake with {sim.bootstrap} failed")


def test_untrusted_certificate_is_a_tls_error(
    tmp_path: Path, tcp_server: Callable[[Callable[[socket.socket], None]], int]
) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        cannot_run("openssl is not installed (Debian: apt-get install openssl; `make tools` installs it)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=kafkatui-test",
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)

    def tls(conn: socket.socket) -> None:
        conn.settimeout(2)
        with ctx.wrap_socket(conn, server_side=True):
            pass

    port = tcp_server(tls)
    err, _ = connect_error(f"127.0.0.1:{port}", security_protocol="SSL")
    assert_one_line(
        err,
        7,
        f"TLS handshake with 127.0.0.1:{port} failed: certificate verify failed: "
        "self-signed certificate (set ssl.ca.location to the broker's (self-signed) certificate or its CA)",
    )


# --------------------------------------------------------------------------- profiles
GOOD = """\
profiles:
  prod-eu:
    bootstrap: kafka-1.prod:9093,kafka-2.prod:9093
    security_protocol: SASL_SSL
    sasl_mechanism: SCRAM-SHA-512
    sasl_username: ops
    password_env: KAFKA_PROD_PASSWORD
    ssl_ca: /etc/kafka/ca.pem
    writes: false
    config: {socket.timeout.ms: "10000", enable.auto.commit: false}
  dev:
    bootstrap: [localhost:9092]
    writes: true
    timeout: 3
  filed:
    bootstrap: k:9093
    security_protocol: SASL_PLAINTEXT
    sasl_mechanism: PLAIN
    sasl_username: ops
    password_file: secret.txt
"""


def write(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "clusters.yaml"
    path.write_text(text)
    os.chmod(path, mode)
    return path


def profile_error(path: Path, name: str, environ: dict[str, str] | None = None) -> ProfileError:
    with pytest.raises(ProfileError) as info:
        load_profile(name, path=path, environ=environ or {})
    return info.value


def test_profile_loads_with_password_from_env(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    profile, warnings = load_profile("prod-eu", path=path, environ={"KAFKA_PROD_PASSWORD": "pw-from-env"})
    s = profile.settings
    assert s.bootstrap == ("kafka-1.prod:9093", "kafka-2.prod:9093")
    assert (s.security_protocol, s.sasl_mechanism, s.sasl_username) == ("SASL_SSL", "SCRAM-SHA-512", "ops")
    assert s.sasl_password == Secret("pw-from-env") and "pw-from-env" not in repr(profile)
    assert s.ssl_ca == "/etc/kafka/ca.pem" and profile.writes is False and warnings == []
    assert s.to_confluent()["socket.timeout.ms"] == "10000"
    assert s.to_confluent()["enable.auto.commit"] == "false"
    dev, _ = load_profile("dev", path=path, environ={})
    assert dev.writes is True and dev.settings.timeout == 3.0 and dev.settings.bootstrap == ("localhost:9092",)
    assert list_profiles(path) == ["dev", "filed", "prod-eu"]


def test_password_file_and_permission_warnings(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, mode=0o644)
    secret = tmp_path / "secret.txt"
    secret.write_text("pw-from-file\n")
    os.chmod(secret, 0o640)
    profile, warnings = load_profile("filed", path=path, environ={})
    assert profile.settings.sasl_password == Secret("pw-from-file")
    assert len(warnings) == 2 and all("\n" not in w for w in warnings)
    assert f"profiles file {path} is readable by other users (chmod 600 {path})" in warnings[0]
    assert f"password_file of profile 'filed' {secret} is readable by its group" in warnings[1]
    assert "pw-from-file" not in " ".join(warnings)
    os.chmod(path, 0o600)
    os.chmod(secret, 0o600)
    assert load_profile("filed", path=path, environ={})[1] == []


def test_missing_password_env_var(tmp_path: Path) -> None:
    err = profile_error(write(tmp_path, GOOD), "prod-eu")
    assert_one_line(
        err,
        4,
        f"{tmp_path / 'clusters.yaml'}:7: profile 'prod-eu': environment variable "
        "KAFKA_PROD_PASSWORD (password_env) is not set",
    )


def test_missing_password_file(tmp_path: Path) -> None:
    err = profile_error(write(tmp_path, GOOD), "filed")
    assert_one_line(err, 4, "profile 'filed': cannot read password_file", "secret.txt: No such file or directory")


def test_malformed_profiles_file(tmp_path: Path) -> None:
    path = write(tmp_path, "profiles:\n  dev:\n    bootstrap: [a:1\n    writes: true\n")
    err = profile_error(path, "dev")
    assert_one_line(err, 4, f"{path}:", "YAML syntax error")
    assert str(err).split(": YAML")[0].rsplit(":", 1)[1].isdigit()  # names the line


def test_unknown_key_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "profiles:\n  dev:\n    bootstrap: a:1\n    bootsrap: b:2\n")
    err = profile_error(path, "dev")
    assert_one_line(err, 4, f"{path}:4: profile 'dev': unknown key 'bootsrap' (known keys: bootstrap,")


def test_password_in_yaml_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "profiles:\n  dev:\n    bootstrap: a:1\n    password: hunter2\n")
    err = profile_error(path, "dev")
    assert_one_line(
        err,
        4,
        f"{path}:4: profile 'dev': passwords do not belong in the profiles file: "
        "use password_env: VAR or password_file: PATH",
    )
    assert "hunter2" not in str(err)
    path = write(tmp_path, "profiles:\n  dev:\n    bootstrap: a:1\n    config:\n      sasl.password: hunter2\n")
    err = profile_error(path, "dev")
    assert_one_line(err, 4, f"{path}:5: profile 'dev': sasl.password is a secret")
    assert "hunter2" not in str(err)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            "profiles:\n  dev:\n    bootstrap: a:1\n    writes: maybe\n",
            ":4: profile 'dev': writes must be true or false",
        ),
        ("profiles:\n  dev:\n    bootstrap: 9092\n", ":3: profile 'dev': bootstrap must be host:port"),
        ("profiles:\n  dev:\n    bootstrap: foo\n", ":3: profile 'dev': bad bootstrap server 'foo': no port"),
        ("profiles:\n  dev: [a:1]\n", ":2: profile 'dev' must be a mapping"),
        ("profiles: [dev]\n", ":1: 'profiles' must be a mapping"),
        ("clusters:\n  dev: {}\n", ":1: unknown top-level key 'clusters'"),
        ("profiles:\n  dev:\n    writes: true\n", "profile 'dev': no bootstrap"),
        ("profiles:\n  dev:\n    bootstrap: a:1\n    timeout: -1\n", ":4: profile 'dev': timeout must be a positive"),
        (
            "profiles:\n  dev:\n    bootstrap: a:1\n    security_protocol: TLS\n",
            ":4: profile 'dev': unknown security_protocol",
        ),
        (
            "profiles:\n  dev:\n    bootstrap: a:1\n    password_env: A\n    password_file: b\n",
            ":5: profile 'dev': give password_env",
        ),
        ("profiles:\n  dev:\n    bootstrap: a:1\n  dev:\n    bootstrap: b:1\n", ":4: profile 'dev' is defined twice"),
    ],
)
def test_wrong_types_and_shapes(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path, text)
    err = profile_error(path, "dev")
    assert_one_line(err, 4, str(path) + fragment if fragment.startswith(":") else fragment)


def test_unknown_profile_lists_the_known_ones(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    err = profile_error(path, "prod-us")
    assert_one_line(err, 4, f"no profile 'prod-us' in {path} (known profiles: dev, filed, prod-eu)")


def test_missing_profiles_file(tmp_path: Path) -> None:
    err = profile_error(tmp_path / "nope.yaml", "dev")
    assert_one_line(err, 4, f"profiles file {tmp_path / 'nope.yaml'} does not exist", "KAFKATUI_PROFILES")


def test_profiles_path_resolution(tmp_path: Path) -> None:
    assert profiles_path({"HOME": "/home/u"}) == Path("/home/u/.config/kafkatui/clusters.yaml")
    assert profiles_path({"HOME": "/home/u", "XDG_CONFIG_HOME": "/x"}) == Path("/x/kafkatui/clusters.yaml")
    assert profiles_path({"HOME": "/home/u", "XDG_CONFIG_HOME": "relative"}) == Path(
        "/home/u/.config/kafkatui/clusters.yaml"
    )
    assert (
        profiles_path({"KAFKATUI_PROFILES": str(tmp_path / "p.yaml"), "XDG_CONFIG_HOME": "/x"}) == tmp_path / "p.yaml"
    )


def test_resolve_connection_combines_profile_and_options(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    env = {"KAFKA_PROD_PASSWORD": "pw"}
    r = resolve_connection(
        profile="prod-eu", x_options=["socket.timeout.ms=2000", "debug=broker"], timeout=4, path=path, environ=env
    )
    assert r.profile == "prod-eu" and r.writes is False and r.settings.timeout == 4.0
    assert r.settings.to_confluent()["socket.timeout.ms"] == "2000"  # -X wins over the profile's config
    assert r.settings.to_confluent()["debug"] == "broker"
    r = resolve_connection(profile="prod-eu", bootstrap="other:9093", path=path, environ=env)
    assert r.settings.bootstrap == ("other:9093",) and r.settings.sasl_username == "ops"
    r = resolve_connection(bootstrap=["a:1,b:2"], x_options=["client.rack=r1"])
    assert r.settings.bootstrap == ("a:1", "b:2") and r.writes is None and r.profile is None
    with pytest.raises(UsageError, match="no cluster given: use --bootstrap host:port or --profile NAME"):
        resolve_connection()
    with pytest.raises(UsageError, match="no bootstrap server given"):
        resolve_connection(bootstrap="")


def test_failed_kafka_python_bootstrap_leaves_no_thread(
    tcp_server: Callable[[Callable[[socket.socket], None]], int],
) -> None:
    from kafkatui.kafka.source import _new_kafka_python_admin

    port = tcp_server(lambda conn: None)  # accepts, never answers
    before = threading.active_count()
    kwargs = ConnectionSettings(f"127.0.0.1:{port}", timeout=1).to_kafka_python()
    with pytest.raises(Exception, match="bootstrap|timed out|Timeout"):
        _new_kafka_python_admin(kwargs)
    assert threading.active_count() == before


def test_scrub_hides_short_secrets_without_mangling_words() -> None:
    from kafkatui.kafka.errors import scrub

    text = "SASL PLAIN not supported: password=p for ops:p (step up)"
    assert scrub(text, ["p"]) == "SASL PLAIN not supported: password=*** for ops:*** (step up)"
    assert scrub("login hunter2-pw failed, hunter2-pwx too", ["hunter2-pw"]) == "login *** failed, ***x too"
    # the longer secret goes first, so a shorter one inside it cannot leave part of it behind
    assert scrub("secret abc123def", ["abc", "abc123def"]) == "secret ***"
