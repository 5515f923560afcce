"""SASL and TLS listeners of the simulator, against real clients and kafkatui's own connection path.

Certificates are made by the openssl command in a temporary directory (tests.integration.tls).
Every failure is asserted as the user sees it, and never with the password in it.
"""

from __future__ import annotations

import logging
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError
from confluent_kafka.admin import AdminClient
from kafka.admin import KafkaAdminClient
from kafka.protocol.metadata.api_versions import ApiVersionsRequest
from kafka.protocol.sasl import SaslHandshakeRequest, SaslHandshakeResponse

from kafkatui.check_cmd import main_check
from kafkatui.kafka.errors import AuthenticationError, KafkaTuiError, NotKafkaError
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.sim.runner import SimRunner
from kafkatui.sim.security import SaslFailure, SecurityConfig
from tests.integration.tls import Certs, make_certs

pytestmark = pytest.mark.timeout(120)

USER = "ops"
PASSWORD = "Tr0ub4dor-sim-secret"
WRONG = "Wr0ng-sim-secret"
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
TIMEOUT = 6.0
FAIL = 3.0  # how long a client that must fail may try


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


def _running(security: dict[str, Any]) -> Iterator[SimRunner]:
    with SimRunner(brokers=1, security=security) as sim:
        sim.call(lambda c: c.create_topic("orders", 2, 1))
        yield sim


@pytest.fixture(scope="module")
def sasl_sim() -> Iterator[SimRunner]:
    """SASL_PLAINTEXT with every mechanism."""
    yield from _running({"protocol": "SASL_PLAINTEXT", "users": {USER: PASSWORD}})


@pytest.fixture(scope="module")
def scram512_sim() -> Iterator[SimRunner]:
    """SASL_PLAINTEXT that enables SCRAM-SHA-512 only."""
    yield from _running({"protocol": "SASL_PLAINTEXT", "users": {USER: PASSWORD}, "mechanisms": ["SCRAM-SHA-512"]})


def _tls(cert: Path, key: Path, **more: Any) -> dict[str, Any]:
    return {"protocol": "SSL", "certfile": str(cert), "keyfile": str(key), **more}


@pytest.fixture(scope="module")
def ssl_sim(certs: Certs) -> Iterator[SimRunner]:
    yield from _running(_tls(certs.server_cert, certs.server_key))


@pytest.fixture(scope="module")
def wrong_host_sim(certs: Certs) -> Iterator[SimRunner]:
    yield from _running(_tls(certs.wrong_host_cert, certs.wrong_host_key))


@pytest.fixture(scope="module")
def expired_sim(certs: Certs) -> Iterator[SimRunner]:
    yield from _running(_tls(certs.expired_cert, certs.expired_key))


@pytest.fixture(scope="module")
def mtls_sim(certs: Certs) -> Iterator[SimRunner]:
    """SASL_SSL (SCRAM-SHA-256) that also requires a client certificate."""
    yield from _running(
        _tls(
            certs.server_cert,
            certs.server_key,
            protocol="SASL_SSL",
            cafile=str(certs.ca),
            require_client_cert=True,
            users={USER: PASSWORD},
            mechanisms=["SCRAM-SHA-256"],
        )
    )


# --------------------------------------------------------------------------- client helpers
def ck_conf(
    sim: SimRunner,
    protocol: str,
    mechanism: str | None = None,
    password: str = PASSWORD,
    ca: Path | None = None,
    cert: Path | None = None,
    key: Path | None = None,
) -> dict[str, Any]:
    conf: dict[str, Any] = {
        "bootstrap.servers": sim.bootstrap,
        "security.protocol": protocol,
        "socket.connection.setup.timeout.ms": 3000,
    }
    if mechanism:
        conf.update({"sasl.mechanism": mechanism, "sasl.username": USER, "sasl.password": password})
    if ca:
        conf["ssl.ca.location"] = str(ca)
    if cert and key:
        conf.update({"ssl.certificate.location": str(cert), "ssl.key.location": str(key)})
    return conf


def ck_topics(conf: dict[str, Any], timeout: float = TIMEOUT) -> set[str]:
    """confluent-kafka list_topics; raises KafkaError text plus the error_cb events on failure."""
    events: list[KafkaError] = []
    full: dict[str, Any] = {**conf, "error_cb": events.append, "log_level": 0}
    admin = AdminClient(full)
    try:
        return set(admin.list_topics(timeout=timeout).topics)
    except Exception as exc:
        admin.poll(0)
        raise AssertionError(" | ".join([str(exc), *(e.str() for e in events)])) from None


def kp_topics(
    sim: SimRunner,
    protocol: str,
    mechanism: str | None = None,
    password: str = PASSWORD,
    ca: Path | None = None,
    cert: Path | None = None,
    key: Path | None = None,
    timeout: float = TIMEOUT,
) -> set[str]:
    kwargs: dict[str, Any] = {
        "bootstrap_servers": sim.bootstrap,
        "security_protocol": protocol,
        "request_timeout_ms": int(timeout * 1000),
        "bootstrap_timeout_ms": int(timeout * 1000),
    }
    if mechanism:
        kwargs.update(sasl_mechanism=mechanism, sasl_plain_username=USER, sasl_plain_password=password)
    if ca:
        kwargs["ssl_cafile"] = str(ca)
    if cert and key:
        kwargs.update(ssl_certfile=str(cert), ssl_keyfile=str(key))
    admin = KafkaAdminClient(**kwargs)
    try:
        return set(admin.list_topics())
    finally:
        admin.close()


def kafkatui_snapshot(sim: SimRunner, **settings: Any) -> Any:
    source = KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=TIMEOUT, **settings))
    try:
        return source.snapshot()
    finally:
        source.close()


def kafkatui_failure(sim: SimRunner, **settings: Any) -> KafkaTuiError:
    with pytest.raises(KafkaTuiError) as info:
        kafkatui_snapshot(sim, **settings)
    err = info.value
    assert PASSWORD not in str(err) and WRONG not in str(err)
    assert "\n" not in str(err)
    return err


def check(capsys: pytest.CaptureFixture[str], sim: SimRunner, *x: str) -> tuple[int, str]:
    """`kafkatui check --bootstrap ... -X k=v ...`: exit code and stderr."""
    args = ["--bootstrap", sim.bootstrap, "--timeout", str(TIMEOUT)]
    for option in x:
        args += ["-X", option]
    code = main_check(args)
    captured = capsys.readouterr()
    assert PASSWORD not in captured.out + captured.err and WRONG not in captured.out + captured.err
    return code, captured.err.strip()


# --------------------------------------------------------------------------- SASL, real clients
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_sasl_mechanisms_succeed_with_both_clients(sasl_sim: SimRunner, mechanism: str) -> None:
    assert "orders" in ck_topics(ck_conf(sasl_sim, "SASL_PLAINTEXT", mechanism))
    assert "orders" in kp_topics(sasl_sim, "SASL_PLAINTEXT", mechanism)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_wrong_password_fails_with_sasl_authentication_failed(
    sasl_sim: SimRunner, mechanism: str, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(AssertionError, match="SASL authentication error: Authentication failed") as info:
        ck_topics(ck_conf(sasl_sim, "SASL_PLAINTEXT", mechanism, password=WRONG), timeout=FAIL)
    assert WRONG not in str(info.value)
    caplog.set_level(logging.WARNING, logger="kafka")  # kafkatui's source silences it process-wide
    with pytest.raises(Exception, match="Unable to bootstrap") as kp:  # kafka-python logs the reason
        kp_topics(sasl_sim, "SASL_PLAINTEXT", mechanism, password=WRONG, timeout=FAIL)
    assert "[Error 58] SaslAuthenticationFailedError" in caplog.text
    assert WRONG not in str(kp.value) + caplog.text


def test_unknown_mechanism_fails_naming_the_enabled_ones(
    scram512_sim: SimRunner, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(AssertionError, match="Unsupported SASL mechanism.*SCRAM-SHA-512"):
        ck_topics(ck_conf(scram512_sim, "SASL_PLAINTEXT", "PLAIN"), timeout=FAIL)
    caplog.set_level(logging.WARNING, logger="kafka")
    with pytest.raises(Exception, match="Unable to bootstrap"):  # kafka-python logs the reason
        kp_topics(scram512_sim, "SASL_PLAINTEXT", "SCRAM-SHA-256", timeout=FAIL)
    assert "UnsupportedSaslMechanismError" in caplog.text


def _request(sock: socket.socket, request: Any, version: int, correlation_id: int) -> bytes | None:
    request.with_header(correlation_id=correlation_id, client_id="raw")
    sock.sendall(bytes(request.encode(version=version, header=True, framed=True)))
    head = sock.recv(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack(">i", head)
    body = b""
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            return None
        body += chunk
    return body[4:]  # after the correlation id (response header v0)


def test_raw_protocol_of_a_sasl_listener(scram512_sim: SimRunner) -> None:
    """ApiVersions is served before authentication; a Metadata request closes the connection
    (Kafka reads it as a legacy GSSAPI token); a wrong mechanism is answered with
    UNSUPPORTED_SASL_MECHANISM (33) and the enabled ones, then the connection is closed."""
    from kafka.protocol.metadata import MetadataRequest

    addr = ("127.0.0.1", scram512_sim.port_of(1))
    with socket.create_connection(addr, timeout=5) as sock:
        assert _request(sock, ApiVersionsRequest(version=0), 0, 1)
        assert _request(sock, MetadataRequest(version=1, topics=None), 1, 2) is None
    with socket.create_connection(addr, timeout=5) as sock:
        body = _request(sock, SaslHandshakeRequest(version=1, mechanism="PLAIN"), 1, 3)
        assert body is not None
        resp = SaslHandshakeResponse.decode(body, version=1)
        assert (resp.error_code, list(resp.mechanisms)) == (33, ["SCRAM-SHA-512"])
        assert sock.recv(4) == b""  # closed


def test_security_config_validation() -> None:
    assert SecurityConfig.of(None).protocol == "PLAINTEXT"
    with pytest.raises(ValueError, match="unknown security protocol"):
        SecurityConfig(protocol="SASL_TLS")
    with pytest.raises(ValueError, match="unsupported SASL mechanism"):
        SecurityConfig(protocol="SASL_PLAINTEXT", users={"a": "b"}, mechanisms=["GSSAPI"])
    with pytest.raises(ValueError, match="needs certfile"):
        SecurityConfig(protocol="SSL")
    with pytest.raises(ValueError, match="at least one user"):
        SecurityConfig(protocol="SASL_PLAINTEXT")
    cfg = SecurityConfig(protocol="sasl_plaintext", users={USER: PASSWORD})
    assert PASSWORD not in repr(cfg.scram)
    with pytest.raises(SaslFailure, match="Invalid username or password"):
        cfg.authenticator("PLAIN").step(f"\0{USER}\0{WRONG}".encode())
    with pytest.raises(SaslFailure, match="invalid credentials"):
        cfg.authenticator("SCRAM-SHA-256").step(b"n,,n=nobody,r=abc")


# --------------------------------------------------------------------------- TLS, real clients
def test_ssl_with_the_ca_succeeds(ssl_sim: SimRunner, certs: Certs) -> None:
    assert "orders" in ck_topics(ck_conf(ssl_sim, "SSL", ca=certs.ca))
    assert "orders" in kp_topics(ssl_sim, "SSL", ca=certs.ca)


def test_untrusted_ca_fails(ssl_sim: SimRunner, certs: Certs, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(AssertionError, match="certificate verify failed"):
        ck_topics(ck_conf(ssl_sim, "SSL", ca=certs.other_ca), timeout=FAIL)
    caplog.set_level(logging.WARNING, logger="kafka")
    with pytest.raises(Exception, match="Unable to bootstrap"):  # kafka-python logs the reason
        kp_topics(ssl_sim, "SSL", ca=certs.other_ca, timeout=FAIL)
    assert "unable to get local issuer certificate" in caplog.text


def test_hostname_mismatch_fails(wrong_host_sim: SimRunner, certs: Certs, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(AssertionError, match="certificate verify failed"):
        ck_topics(ck_conf(wrong_host_sim, "SSL", ca=certs.ca), timeout=FAIL)
    caplog.set_level(logging.WARNING, logger="kafka")
    with pytest.raises(Exception, match="Unable to bootstrap"):
        kp_topics(wrong_host_sim, "SSL", ca=certs.ca, timeout=FAIL)
    assert "IP address mismatch, certificate is not valid for '127.0.0.1'" in caplog.text


def test_expired_certificate_fails(expired_sim: SimRunner, certs: Certs) -> None:
    with pytest.raises(AssertionError, match="certificate verify failed"):
        ck_topics(ck_conf(expired_sim, "SSL", ca=certs.ca), timeout=FAIL)


def test_plaintext_client_to_a_tls_port_fails_and_gets_a_tls_alert(ssl_sim: SimRunner) -> None:
    with pytest.raises(AssertionError, match="Failed to get metadata"):
        ck_topics(ck_conf(ssl_sim, "PLAINTEXT"), timeout=FAIL)
    with pytest.raises(Exception):  # noqa: B017
        kp_topics(ssl_sim, "PLAINTEXT", timeout=FAIL)
    with socket.create_connection(("127.0.0.1", ssl_sim.port_of(1)), timeout=5) as sock:
        request = ApiVersionsRequest(version=0)
        request.with_header(correlation_id=1, client_id="raw")
        sock.sendall(bytes(request.encode(version=0, header=True, framed=True)))
        assert sock.recv(16)[:2] == b"\x15\x03"  # a fatal TLS alert, as Kafka answers


def test_mtls_needs_a_client_certificate(mtls_sim: SimRunner, certs: Certs) -> None:
    with pytest.raises(AssertionError, match="alert certificate required"):
        ck_topics(ck_conf(mtls_sim, "SASL_SSL", "SCRAM-SHA-256", ca=certs.ca), timeout=FAIL)
    with pytest.raises(Exception):  # noqa: B017
        kp_topics(mtls_sim, "SASL_SSL", "SCRAM-SHA-256", ca=certs.ca, timeout=FAIL)
    ca, cert, key = certs.ca, certs.client_cert, certs.client_key
    assert "orders" in ck_topics(ck_conf(mtls_sim, "SASL_SSL", "SCRAM-SHA-256", ca=ca, cert=cert, key=key))
    assert "orders" in kp_topics(mtls_sim, "SASL_SSL", "SCRAM-SHA-256", ca=ca, cert=cert, key=key)


# --------------------------------------------------------------------------- kafkatui's own path
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_kafkatui_source_over_sasl(sasl_sim: SimRunner, mechanism: str) -> None:
    snap = kafkatui_snapshot(
        sasl_sim,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism=mechanism,
        sasl_username=USER,
        sasl_password=PASSWORD,
    )
    assert "orders" in set(snap.topics)
    assert not snap.problems


def test_kafkatui_source_over_ssl_and_mtls(ssl_sim: SimRunner, mtls_sim: SimRunner, certs: Certs) -> None:
    snap = kafkatui_snapshot(ssl_sim, security_protocol="SSL", ssl_ca=str(certs.ca))
    assert "orders" in set(snap.topics) and not snap.problems
    snap = kafkatui_snapshot(
        mtls_sim,
        security_protocol="SASL_SSL",
        ssl_ca=str(certs.ca),
        ssl_cert=str(certs.client_cert),
        ssl_key=str(certs.client_key),
        sasl_mechanism="SCRAM-SHA-256",
        sasl_username=USER,
        sasl_password=PASSWORD,
    )
    assert "orders" in set(snap.topics) and not snap.problems


def test_kafkatui_wrong_password(sasl_sim: SimRunner) -> None:
    err = kafkatui_failure(
        sasl_sim,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-256",
        sasl_username=USER,
        sasl_password=WRONG,
    )
    assert isinstance(err, AuthenticationError) and err.exit_code == 7
    assert str(err) == (
        f"SASL authentication with 127.0.0.1:{sasl_sim.port_of(1)} failed: Authentication failed during "
        "authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"
    )


def test_kafkatui_unknown_mechanism(scram512_sim: SimRunner) -> None:
    err = kafkatui_failure(
        scram512_sim,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        sasl_username=USER,
        sasl_password=PASSWORD,
    )
    assert isinstance(err, AuthenticationError)
    assert str(err) == (
        f"SASL authentication with 127.0.0.1:{scram512_sim.port_of(1)} failed: SASL PLAIN mechanism handshake "
        "failed: Broker: Unsupported SASL mechanism: broker's supported mechanisms: SCRAM-SHA-512"
    )


def test_kafkatui_plaintext_to_a_sasl_listener(sasl_sim: SimRunner) -> None:
    err = kafkatui_failure(sasl_sim)
    assert isinstance(err, NotKafkaError) and err.exit_code == 6
    assert "closes them during the Kafka handshake" in str(
        err
    ) or "closed the connection during the Kafka handshake" in str(err)
    assert "expects TLS or SASL (security protocol here: PLAINTEXT)" in str(err)


def verify_failed(sim: SimRunner, cause: str) -> str:
    """The one line kafkatui shows when librdkafka says "certificate verify failed": with the cause."""
    return f"TLS handshake with 127.0.0.1:{sim.port_of(1)} failed: certificate verify failed: {cause}"


def test_kafkatui_untrusted_ca(ssl_sim: SimRunner, certs: Certs) -> None:
    err = kafkatui_failure(ssl_sim, security_protocol="SSL", ssl_ca=str(certs.other_ca))
    assert isinstance(err, AuthenticationError) and err.exit_code == 7
    assert str(err) == verify_failed(
        ssl_sim,
        "unable to get local issuer certificate (set ssl.ca.location to the CA that signed the broker's certificate)",
    )


def test_kafkatui_no_ca_given_for_a_private_ca(ssl_sim: SimRunner) -> None:
    err = kafkatui_failure(ssl_sim, security_protocol="SSL")  # the system's CAs do not know ours
    assert str(err).startswith(verify_failed(ssl_sim, "unable to get local issuer certificate"))


def test_kafkatui_hostname_mismatch(wrong_host_sim: SimRunner, certs: Certs) -> None:
    err = kafkatui_failure(wrong_host_sim, security_protocol="SSL", ssl_ca=str(certs.ca))
    assert isinstance(err, AuthenticationError) and err.exit_code == 7
    assert str(err) == verify_failed(
        wrong_host_sim,
        "IP address mismatch, certificate is not valid for '127.0.0.1' "
        "(connect with a name the certificate lists, or set "
        "ssl.endpoint.identification.algorithm=none)",
    )


def test_kafkatui_hostname_check_off_accepts_the_wrong_host(wrong_host_sim: SimRunner, certs: Certs) -> None:
    snap = kafkatui_snapshot(
        wrong_host_sim,
        security_protocol="SSL",
        ssl_ca=str(certs.ca),
        extra={"ssl.endpoint.identification.algorithm": "none"},
    )
    assert "orders" in set(snap.topics)


def test_kafkatui_expired_certificate(expired_sim: SimRunner, certs: Certs) -> None:
    err = kafkatui_failure(expired_sim, security_protocol="SSL", ssl_ca=str(certs.ca))
    assert isinstance(err, AuthenticationError) and err.exit_code == 7
    assert str(err) == verify_failed(
        expired_sim, "certificate has expired (renew the broker's certificate, or check this machine's clock)"
    )


def test_kafkatui_plaintext_to_a_tls_port(ssl_sim: SimRunner) -> None:
    err = kafkatui_failure(ssl_sim)
    assert isinstance(err, NotKafkaError) and err.exit_code == 6
    assert str(err) == (
        f"127.0.0.1:{ssl_sim.port_of(1)} closed the connection during the Kafka handshake: not a Kafka listener, "
        "or one that expects TLS or SASL (security protocol here: PLAINTEXT)"
    )


def test_kafkatui_mtls_without_a_client_certificate(mtls_sim: SimRunner, certs: Certs) -> None:
    err = kafkatui_failure(
        mtls_sim,
        security_protocol="SASL_SSL",
        ssl_ca=str(certs.ca),
        sasl_mechanism="SCRAM-SHA-256",
        sasl_username=USER,
        sasl_password=PASSWORD,
    )
    # librdkafka reports "Receive failed: ...tlsv13 alert certificate required" in state APIVERSION_QUERY
    assert isinstance(err, AuthenticationError)
    assert err.exit_code == 7
    assert "requires a client certificate (mTLS)" in str(err) and "ssl.certificate.location" in str(err)
    assert PASSWORD not in str(err)


# --------------------------------------------------------------------------- kafkatui check
def test_check_succeeds_over_sasl_ssl(mtls_sim: SimRunner, certs: Certs, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = check(
        capsys,
        mtls_sim,
        "security.protocol=SASL_SSL",
        f"ssl.ca.location={certs.ca}",
        f"ssl.certificate.location={certs.client_cert}",
        f"ssl.key.location={certs.client_key}",
        "sasl.mechanism=SCRAM-SHA-256",
        f"sasl.username={USER}",
        f"sasl.password={PASSWORD}",
    )
    assert code in (0, 1, 2), err
    assert "error" not in err


def test_check_wrong_password_exits_7(sasl_sim: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = check(
        capsys,
        sasl_sim,
        "security.protocol=SASL_PLAINTEXT",
        "sasl.mechanism=SCRAM-SHA-512",
        f"sasl.username={USER}",
        f"sasl.password={WRONG}",
    )
    assert code == 7
    assert err.splitlines()[-1] == (
        f"kafkatui: error: SASL authentication with 127.0.0.1:{sasl_sim.port_of(1)} failed: Authentication failed "
        "during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
    )


def test_check_untrusted_ca_exits_7(ssl_sim: SimRunner, certs: Certs, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = check(capsys, ssl_sim, "security.protocol=SSL", f"ssl.ca.location={certs.other_ca}")
    assert code == 7
    assert err.splitlines()[-1].startswith(
        "kafkatui: error: " + verify_failed(ssl_sim, "unable to get local issuer certificate")
    )


def test_check_expired_certificate_exits_7(
    expired_sim: SimRunner, certs: Certs, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = check(capsys, expired_sim, "security.protocol=SSL", f"ssl.ca.location={certs.ca}")
    assert code == 7
    assert err.splitlines()[-1].startswith("kafkatui: error: " + verify_failed(expired_sim, "certificate has expired"))


def test_check_hostname_mismatch_exits_7(
    wrong_host_sim: SimRunner, certs: Certs, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = check(capsys, wrong_host_sim, "security.protocol=SSL", f"ssl.ca.location={certs.ca}")
    assert code == 7
    assert err.splitlines()[-1].startswith(
        "kafkatui: error: "
        + verify_failed(wrong_host_sim, "IP address mismatch, certificate is not valid for '127.0.0.1'")
    )


def test_dashboard_feed_shows_the_certificate_cause(expired_sim: SimRunner, certs: Certs) -> None:
    """The TUI's refresh worker reports the same precise cause (the events pane and the STALE line show it)."""
    from kafkatui.tui.feed import Feed

    source = KafkaClusterSource(
        ConnectionSettings(expired_sim.bootstrap, timeout=TIMEOUT, security_protocol="SSL", ssl_ca=str(certs.ca))
    )
    feed = Feed(source, bootstrap=expired_sim.bootstrap)
    try:
        state = feed.refresh()
    finally:
        feed.close()
    assert state.snapshot is None and state.failures == 1
    assert (state.error or "").startswith(verify_failed(expired_sim, "certificate has expired"))


def test_check_plaintext_to_tls_exits_6(ssl_sim: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = check(capsys, ssl_sim)
    assert code == 6
    assert "closed the connection during the Kafka handshake" in err and "expects TLS or SASL" in err


def test_dashboard_shows_the_certificate_cause_on_screen(wrong_host_sim: SimRunner, certs: Certs) -> None:
    """The summary bar of the dashboard (Pilot) says why TLS failed, in one line of words."""
    import asyncio

    from kafkatui.tui.app import KafkaTuiApp
    from kafkatui.tui.feed import Feed
    from kafkatui.tui.widgets.summary import SummaryBar

    source = KafkaClusterSource(
        ConnectionSettings(wrong_host_sim.bootstrap, timeout=TIMEOUT, security_protocol="SSL", ssl_ca=str(certs.ca))
    )
    app = KafkaTuiApp(Feed(source, bootstrap=wrong_host_sim.bootstrap), auto_refresh=False, source_label="tls")
    shown = ""

    async def main() -> None:
        nonlocal shown
        async with app.run_test(size=(200, 30)) as pilot:
            for _ in range(300):
                if app.state.error is not None:
                    break
                await pilot.pause(0.05)
            await pilot.pause()
            shown = " ".join(str(app.screen.query_one(SummaryBar).render()).split())

    try:
        asyncio.run(main())
    finally:
        source.close()
    assert (
        "cannot read the cluster: "
        + verify_failed(wrong_host_sim, "IP address mismatch, certificate is not valid for '127.0.0.1'")
        in shown
    ), shown


def test_tls_probe_tells_only_what_it_knows(ssl_sim: SimRunner, certs: Certs, tmp_path: Path) -> None:
    """The probe behind those messages: a cause for a verify failure, None when it cannot tell."""
    from kafkatui.kafka.tlsprobe import verify_failure_reason

    port = ssl_sim.port_of(1)
    assert verify_failure_reason("127.0.0.1", port, {"ssl.ca.location": str(certs.other_ca)}) == (
        "unable to get local issuer certificate"
    )
    assert verify_failure_reason("127.0.0.1", port, {"ssl.ca.location": str(certs.ca)}) is None  # it verifies
    assert verify_failure_reason("localhost", port, {"ssl.ca.location": str(certs.ca)}) is None
    assert verify_failure_reason("127.0.0.1", port, {"ssl.ca.location": str(tmp_path / "missing.pem")}) is None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    assert verify_failure_reason("127.0.0.1", closed, {"ssl.ca.location": str(certs.ca)}) is None
