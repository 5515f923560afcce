"""Why a broker's certificate failed verification, in words a user can act on.

librdkafka reports every verification failure as the same "certificate verify failed". When it
does, `verify_failure_reason` opens one TLS connection with Python's ssl module, configured as the
client was (CA file or directory, client certificate, host name check on or off), and returns
OpenSSL's own verify message: "certificate has expired", "Hostname mismatch, certificate is not
valid for 'kafka-1'", "unable to get local issuer certificate", "self-signed certificate in
certificate chain"... Nothing is sent over the connection; no password is read except the
client key's, handed to ssl only.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import ssl
from collections.abc import Mapping

from kafkatui.kafka.errors import one_line

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 3.0
REJECTED_CLIENT_CERT = "the broker rejected the client certificate"

_HINTS = {
    "certificate has expired": "renew the broker's certificate, or check this machine's clock",
    "certificate is not yet valid": "check this machine's clock",
    "unable to get local issuer certificate": "set ssl.ca.location to the CA that signed the broker's certificate",
    "self-signed certificate": "set ssl.ca.location to the broker's (self-signed) certificate or its CA",
    "self-signed certificate in certificate chain": "set ssl.ca.location to the CA that signed the broker's "
    "certificate",
    "mismatch": "connect with a name the certificate lists, or set ssl.endpoint.identification.algorithm=none",
}


def _client_context(conf: Mapping[str, str]) -> ssl.SSLContext:
    """An SSLContext that verifies as librdkafka does with these settings."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ca = conf.get("ssl.ca.location")
    if conf.get("ssl.ca.pem"):
        ctx.load_verify_locations(cadata=conf["ssl.ca.pem"])
    elif ca and ca.lower() != "probe":
        if os.path.isdir(ca):
            ctx.load_verify_locations(capath=ca)
        else:
            ctx.load_verify_locations(cafile=ca)
    else:
        ctx.load_default_certs()
    ctx.check_hostname = conf.get("ssl.endpoint.identification.algorithm", "https").lower() != "none"
    cert, key = conf.get("ssl.certificate.location"), conf.get("ssl.key.location")
    if cert:
        ctx.load_cert_chain(cert, key or None, conf.get("ssl.key.password") or None)
    return ctx


def verify_failure_reason(host: str, port: int, conf: Mapping[str, str], timeout: float = PROBE_TIMEOUT) -> str | None:
    """OpenSSL's verify message for the broker at host:port with librdkafka settings `conf`.

    None when the probe cannot tell: the handshake succeeds, the connection fails, or the
    client settings cannot be loaded into Python's ssl.
    """
    try:
        ctx = _client_context(conf)
    except (OSError, ssl.SSLError, ValueError) as exc:
        log.debug("TLS probe: cannot load the client's TLS settings: %s", exc)
        return None
    try:
        with (
            socket.create_connection((host, port), timeout=timeout) as sock,
            ctx.wrap_socket(sock, server_hostname=host.strip("[]")),
        ):
            return None
    except ssl.SSLCertVerificationError as exc:
        return one_line(exc.verify_message or str(exc.reason or exc), 200).rstrip(".")
    except (OSError, ValueError) as exc:
        log.debug("TLS probe of %s:%d inconclusive: %s", host, port, exc)
        return None


def explain(reason: str) -> str:
    """`reason` followed by what to do about it, when known."""
    low = reason.lower()
    for key, hint in _HINTS.items():
        if key == low or (key == "mismatch" and key in low):
            return f"{reason} ({hint})"
    return reason


_FILE_SETTING = re.compile(r"\b(ssl\.(?:ca|certificate|key|keystore|crl)\.location) failed")
_FILE_WANTS = {
    "ssl.ca.location": "no CA certificate in it that librdkafka can read (PEM expected)",
    "ssl.certificate.location": "no certificate in it that librdkafka can read (PEM expected)",
    "ssl.key.location": "no private key in it that librdkafka can read (PEM expected), or ssl.key.password is wrong",
    "ssl.keystore.location": "not a PKCS#12 keystore librdkafka can open, or ssl.keystore.password is wrong",
    "ssl.crl.location": "no CRL in it that librdkafka can read",
}


def explain_file_setting(reason: str, conf: Mapping[str, str]) -> str | None:
    """librdkafka's "ssl.ca.location failed: error:05880020:x509 certificate routines::BIO lib" as
    "ssl.ca.location /etc/ca.pem: No such file or directory" (or what the file lacks); None if not such a failure."""
    m = _FILE_SETTING.search(reason)
    if m is None:
        return None
    key = m.group(1)
    path = conf.get(key)
    if not path:
        return None
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        return f"{key} {path}: {exc.strerror or exc}"
    return f"{key} {path}: {_FILE_WANTS[key]}"


def client_certificate_hint(conf: Mapping[str, str]) -> str:
    """What follows "the broker rejected the client certificate": none given (the listener requires
    one), or the certificate's own dates when it has expired or is not valid yet; else ""."""
    cert = conf.get("ssl.certificate.location")
    if not cert and not conf.get("ssl.certificate.pem") and not conf.get("ssl.keystore.location"):
        return " (none was given: this listener requires one (mTLS): set ssl.certificate.location and ssl.key.location)"
    if not cert:
        return ""
    try:
        decoded = ssl._ssl._test_decode_cert(cert)  # type: ignore[attr-defined]  # noqa: SLF001 - no public API
        not_before = ssl.cert_time_to_seconds(decoded["notBefore"])
        not_after = ssl.cert_time_to_seconds(decoded["notAfter"])
    except (OSError, ssl.SSLError, ValueError, KeyError, AttributeError):
        return ""
    import time

    now = time.time()
    if now > not_after:
        return f": ssl.certificate.location {cert} expired on {decoded['notAfter']}"
    if now < not_before:
        return f": ssl.certificate.location {cert} is not valid before {decoded['notBefore']} (check the clock)"
    return " (is it signed by a CA the broker trusts, and for the right principal?)"
