"""Test certificates made with the openssl command: a CA, server and client certificates."""

from __future__ import annotations

import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.ci import cannot_run

SERVER_SAN = "IP:127.0.0.1,DNS:localhost"


@dataclass(frozen=True)
class Certs:
    """PEM files in one directory (every key unencrypted)."""

    ca: Path  # the CA that signs everything below
    other_ca: Path  # a CA nobody here trusts
    server_cert: Path  # for 127.0.0.1 and localhost
    server_key: Path
    wrong_host_cert: Path  # for wrong.example only
    wrong_host_key: Path
    expired_cert: Path  # for 127.0.0.1 and localhost, expired
    expired_key: Path
    client_cert: Path  # client authentication (mTLS), CN=ops
    client_key: Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _ca(d: Path, name: str) -> None:
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.pem",
        "-days",
        "2",
        "-subj",
        f"/CN={name}",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        cwd=d,
    )


def _leaf(d: Path, name: str, cn: str, extensions: str, days: str = "2") -> None:
    (d / f"{name}.ext").write_text(extensions + "\nbasicConstraints=CA:FALSE\n")
    _openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.csr",
        "-subj",
        f"/CN={cn}",
        cwd=d,
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        f"{name}.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-set_serial",
        str(secrets.randbits(63)),
        "-out",
        f"{name}.pem",
        "-days",
        days,
        "-extfile",
        f"{name}.ext",
        cwd=d,
    )


def make_certs(d: Path) -> Certs:
    """Generate every certificate in `d`; fails in CI (skips elsewhere) when openssl is missing."""
    if shutil.which("openssl") is None:
        cannot_run("the openssl command is not installed: cannot make test certificates (`make tools` installs it)")
    d.mkdir(parents=True, exist_ok=True)
    _ca(d, "ca")
    _ca(d, "other-ca")
    server = f"subjectAltName={SERVER_SAN}\nextendedKeyUsage=serverAuth"
    _leaf(d, "server", "localhost", server)
    _leaf(d, "wrong-host", "wrong.example", "subjectAltName=DNS:wrong.example\nextendedKeyUsage=serverAuth")
    _leaf(d, "expired", "localhost", server, days="-1")  # notAfter a day before notBefore: expired
    _leaf(d, "client", "ops", "extendedKeyUsage=clientAuth")
    return Certs(
        ca=d / "ca.pem",
        other_ca=d / "other-ca.pem",
        server_cert=d / "server.pem",
        server_key=d / "server.key",
        wrong_host_cert=d / "wrong-host.pem",
        wrong_host_key=d / "wrong-host.key",
        expired_cert=d / "expired.pem",
        expired_key=d / "expired.key",
        client_cert=d / "client.pem",
        client_key=d / "client.key",
    )
