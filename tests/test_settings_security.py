"""How secured settings reach both client libraries (issue 28): secrets from files, mechanism names,
OAUTHBEARER token providers for kafka-python, CA directories, and the warnings for checks turned off.
The real-broker side of each is in tests/lab/test_security*.py."""

from __future__ import annotations

import base64
import json
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from kafkatui.kafka.errors import ProfileError, UsageError
from kafkatui.kafka.profiles import resolve_connection
from kafkatui.kafka.settings import ConnectionSettings, Secret, is_sensitive_key, parse_x_options

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "Hunter2-file-secret"


def secret_file(tmp_path: Path, text: str = PASSWORD + "\n") -> Path:
    path = tmp_path / "pw"
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_a_secret_setting_is_read_from_its_file(tmp_path: Path) -> None:
    extra = parse_x_options([f"sasl.password_file={secret_file(tmp_path)}"])
    assert set(extra) == {"sasl.password"} and extra["sasl.password"] == Secret(PASSWORD)
    s = ConnectionSettings(
        "k:9093", security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_username="ops", extra=extra
    )
    assert s.to_confluent()["sasl.password"] == PASSWORD
    assert s.to_kafka_python()["sasl_plain_password"] == PASSWORD
    assert PASSWORD not in repr(s) and PASSWORD in s.secrets()


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "No such file or directory"), ("\n", "is empty")],
)
def test_a_secret_file_that_cannot_be_used_is_one_line(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "pw"
    if content is not None:
        path.write_text(content)
    with pytest.raises(UsageError, match=message) as info:
        parse_x_options([f"ssl.key.password_file={path}"])
    assert str(info.value).startswith(f"-X: ssl.key.password_file {path}")


def test_a_not_secret_key_with_file_suffix_is_passed_through() -> None:
    assert parse_x_options(["sasl.oauthbearer.assertion.private.key.file=/k.pem"]) == {
        "sasl.oauthbearer.assertion.private.key.file": "/k.pem"
    }


def test_profile_config_reads_a_client_secret_file_relative_to_the_profiles_file(tmp_path: Path) -> None:
    secret_file(tmp_path)
    profiles = tmp_path / "clusters.yaml"
    profiles.write_text(
        "profiles:\n  oidc:\n    bootstrap: k:9095\n    security_protocol: SASL_SSL\n    sasl_mechanism: OAUTHBEARER\n"
        "    config:\n      sasl.oauthbearer.method: oidc\n      sasl.oauthbearer.client.id: kafkatui\n"
        "      sasl.oauthbearer.client.secret_file: pw\n"
        "      sasl.oauthbearer.token.endpoint.url: https://idp.example/token\n"
    )
    profiles.chmod(0o600)
    conn = resolve_connection(profile="oidc", path=profiles)
    conf = conn.settings.to_confluent()
    assert conf["sasl.oauthbearer.client.secret"] == PASSWORD
    assert conf["sasl.oauthbearer.token.endpoint.url"] == "https://idp.example/token"
    assert not is_sensitive_key("sasl.oauthbearer.token.endpoint.url")  # a URL, not a secret: allowed in a profile
    profiles.write_text(profiles.read_text().replace("client.secret_file: pw", f"client.secret: {PASSWORD}"))
    with pytest.raises(ProfileError, match="sasl.oauthbearer.client.secret_file: PATH") as info:
        resolve_connection(profile="oidc", path=profiles)
    assert PASSWORD not in str(info.value)


def test_mechanism_names_reach_both_libraries_upper_case() -> None:
    """librdkafka refuses scram-sha-512 ("Unsupported SASL mechanism"); kafka-python took it."""
    x = parse_x_options(["sasl.mechanism=scram-sha-512", "sasl.username=ops", "sasl.password=p"])
    s = ConnectionSettings("k:9093", security_protocol="SASL_SSL", extra=x)
    assert s.to_confluent()["sasl.mechanism"] == "SCRAM-SHA-512"
    assert s.to_kafka_python()["sasl_mechanism"] == "SCRAM-SHA-512"


def test_kafka_python_gets_an_unsecured_jwt_as_librdkafka_makes_it() -> None:
    x = parse_x_options(
        [
            "sasl.mechanism=OAUTHBEARER",
            "enable.sasl.oauthbearer.unsecure.jwt=true",
            "sasl.oauthbearer.config=principal=ops scope=read",
            "sasl.oauthbearer.extensions=logicalCluster=lkc-1",
        ]
    )
    kw = ConnectionSettings("k:9093", security_protocol="SASL_PLAINTEXT", extra=x).to_kafka_python()
    provider = kw["sasl_oauth_token_provider"]
    header, claims, signature = provider.token().split(".")
    assert json.loads(base64.urlsafe_b64decode(header + "==")) == {"alg": "none"} and signature == ""
    body = json.loads(base64.urlsafe_b64decode(claims + "=="))
    assert body["sub"] == "ops" and body["exp"] > body["iat"]
    assert provider.extensions() == {"logicalCluster": "lkc-1"}
    assert provider.token() == provider.token()  # reused until 80% of its life


def test_kafka_python_gets_oidc_tokens_from_the_token_endpoint(tmp_path: Path) -> None:
    from kafkatui.kafka.oauth import TokenError
    from kafkatui.lab.oidc import Issuer

    if subprocess.run(["openssl", "version"], capture_output=True).returncode != 0:
        pytest.skip(reason="openssl is missing")
    issuer = Issuer(tmp_path, {"kafkatui": PASSWORD}, "kafka")
    issuer.start()
    try:

        def provider(secret: str):  # type: ignore[no-untyped-def]
            x = parse_x_options(
                [
                    "sasl.mechanism=OAUTHBEARER",
                    "sasl.oauthbearer.method=oidc",
                    "sasl.oauthbearer.client.id=kafkatui",
                    f"sasl.oauthbearer.client.secret={secret}",
                    f"sasl.oauthbearer.token.endpoint.url={issuer.token_url}",
                ]
            )
            return ConnectionSettings("k:9093", security_protocol="SASL_SSL", extra=x).to_kafka_python()[
                "sasl_oauth_token_provider"
            ]

        token = provider(PASSWORD).token()
        assert token == issuer.issued[-1]
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        assert claims["sub"] == "kafkatui" and claims["aud"] == "kafka"
        with pytest.raises(TokenError, match="answered HTTP 401") as info:
            provider("wrong").token()
        assert "wrong" not in str(info.value) and PASSWORD not in repr(provider(PASSWORD))
    finally:
        issuer.stop()


def test_a_ca_directory_reaches_kafka_python_through_a_context(tmp_path: Path) -> None:
    x = parse_x_options([f"ssl.ca.location={tmp_path}"])
    kw = ConnectionSettings("k:9093", security_protocol="SSL", extra=x).to_kafka_python()
    assert isinstance(kw["ssl_context"], ssl.SSLContext) and kw["ssl_context"].check_hostname
    kw = ConnectionSettings(
        "k:9093", security_protocol="SSL", extra={**x, "ssl.endpoint.identification.algorithm": "none"}
    ).to_kafka_python()
    assert kw["ssl_check_hostname"] is False and not kw["ssl_context"].check_hostname


def test_turning_a_tls_check_off_is_warned_about() -> None:
    conn = resolve_connection(
        bootstrap="k:9093",
        x_options=["security.protocol=SSL", "ssl.endpoint.identification.algorithm=none"],
    )
    assert conn.warnings == (
        "ssl.endpoint.identification.algorithm=none: the brokers' host names are not checked against their "
        "certificates (any certificate from a trusted CA is accepted for any broker)",
    )
    assert (
        resolve_connection(bootstrap="k:9092", x_options=["ssl.endpoint.identification.algorithm=none"]).warnings == ()
    )


def test_lab_refuses_an_unknown_security_mode() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", "lab", "--security", "kerberos", "--fetch-only"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert proc.returncode == 3
    assert proc.stderr.strip() == (
        "kafkatui: error: --security: unknown security mode kerberos: use sasl_ssl, ssl, mtls, oauthbearer or all"
    )


def test_lab_refuses_security_on_a_line_that_cannot_serve_it() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", "lab", "--version", "2.8", "--security", "ssl", "--fetch-only"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert proc.returncode == 3
    assert proc.stderr.strip() == (
        "kafkatui: error: --security: Kafka 2.8.2's brokers refuse the lab's PEM key store (no key password), and it "
        "has no OIDC validator (Kafka 3.1 and later): use --version 3.9-zk for ZooKeeper mode, or a KRaft line "
        "(4.4 ... 3.9)"
    )
