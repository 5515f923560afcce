"""A secured lab: a CA and certificates, SCRAM users, an OIDC issuer, ACLs and one listener per mode.

`kafkatui lab --security MODE` (and `LabCluster(security=LabSecurity(...))` in the tests) gives every
broker, besides the lab's own PLAINTEXT listener, one listener per security mode:

- ``sasl_ssl``: SASL_SSL with SCRAM-SHA-512 only (as Amazon MSK's port 9096);
- ``ssl``: TLS without client certificates (Kafka names every client ``ANONYMOUS``);
- ``mtls``: TLS that requires a client certificate; the principal is the certificate's CN;
- ``oauthbearer``: SASL_SSL with OAUTHBEARER, tokens validated by Kafka's own OIDC handler
  (`OAuthBearerValidatorCallbackHandler`) against the JWKS of an issuer this process serves on
  127.0.0.1 (`kafkatui.lab.oidc`), which also hands out tokens for client credentials.

The users are the same in every mode: ``admin`` (a super user) and ``reader`` (Describe,
DescribeConfigs and Read on every topic, group and the cluster; no Alter, no AlterConfigs). Passwords,
key passwords and client secrets are random per lab and live in files of mode 0600 under
``<lab>/security``; what the lab prints names those files, never their contents.

The lab's PLAINTEXT listener and the controller's stay as they were (``ANONYMOUS`` is a super user
there), so that the lab's own tooling and `lab ctl load` work unchanged.

In ZooKeeper mode (3.9-zk, 2.8) the same listeners and users are served, with three differences: the
authorizer is ZooKeeper mode's `AclAuthorizer` (ACLs kept in ZooKeeper); the SCRAM users are written to
ZooKeeper by Kafka's `ConfigCommand` before any broker starts (`scram_config_file`); and the brokers talk
to each other over the loopback PLAINTEXT listener, where ``ANONYMOUS`` is a super user, as on KRaft.
2.8 is refused (`refusal`): its brokers want a password on a PEM key store, and it has no OIDC validator.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafkatui.lab.config import NodeSpec
from kafkatui.lab.errors import MissingTool, StartFailed
from kafkatui.lab.versions import KafkaRelease

MODES = ("sasl_ssl", "ssl", "mtls", "oauthbearer")
USERS = ("admin", "reader")
SCRAM = "SCRAM-SHA-512"
STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
ACL_AUTHORIZER = "kafka.security.authorizer.AclAuthorizer"
"""ZooKeeper mode's authorizer (ACLs in ZooKeeper); StandardAuthorizer needs KRaft's metadata log."""
OIDC_VALIDATOR = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
CERT_DAYS = 30
AUDIENCE = "kafka"

LISTENERS: dict[str, tuple[str, str]] = {
    "sasl_ssl": ("SASL_SSL", "SASL_SSL"),
    "ssl": ("SSL", "SSL"),
    "mtls": ("MTLS", "SSL"),
    "oauthbearer": ("OAUTH", "SASL_SSL"),
}
"""Mode -> (listener name, security protocol)."""


def parse_modes(text: str) -> tuple[str, ...]:
    """``sasl_ssl``, ``mtls,oauthbearer`` or ``all`` as modes; ValueError naming the known ones."""
    words = [w.strip().lower().replace("-", "_") for w in text.split(",") if w.strip()]
    if words == ["all"]:
        return MODES
    bad = [w for w in words if w not in MODES]
    if bad or not words:
        raise ValueError(f"unknown security mode {', '.join(bad) or repr(text)}: use {', '.join(MODES)} or all")
    return tuple(dict.fromkeys(words))


def refusal(rel: KafkaRelease) -> str | None:
    """Why `rel` cannot serve the secured listeners (one line), or None when it can (3.9 and 4.x)."""
    major, minor = (int(x) for x in rel.line.split("."))
    if (major, minor) < (3, 9):
        # tried on 2.8.2: "SSL PEM key store is specified, but key password is not specified" (exit 1)
        return (
            f"Kafka {rel.version}'s brokers refuse the lab's PEM key store (no key password), and it has no OIDC "
            "validator (Kafka 3.1 and later): use --version 3.9-zk for ZooKeeper mode, or a KRaft line (4.4 ... 3.9)"
        )
    return None


def _openssl(*args: str, cwd: Path) -> None:
    try:
        proc = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise MissingTool(
            "the openssl command is not installed (Debian: apt-get install openssl; make tools)"
        ) from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise StartFailed(f"openssl {args[0]} failed making the lab's certificates: {last[:200]}")


def _secret_file(path: Path, value: str) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(value + "\n")
    return path


@dataclass
class LabSecurity:
    """The secured listeners of a lab and everything they need, under `home` (``<lab>/security``)."""

    modes: tuple[str, ...] = MODES
    home: Path = Path()
    ports: dict[int, dict[str, int]] = field(default_factory=dict)  # broker id -> mode -> port
    oidc: Any = None  # kafkatui.lab.oidc.Issuer while it serves
    token_url: str = ""  # the issuer's token endpoint (oauthbearer)

    # ----------------------------------------------------------------- files
    def path(self, name: str) -> Path:
        """A file of the lab's security directory."""
        return self.home / name

    def password(self, user: str) -> str:
        """`user`'s SCRAM password (read from its file; for the lab itself and the tests)."""
        return self.path(f"{user}.password").read_text(encoding="utf-8").strip()

    def prepare(self, home: Path, broker_ids: Sequence[int], free_ports: Any) -> None:
        """Make the CA, the certificates, the passwords and the ports; start the OIDC issuer if needed."""
        if shutil.which("openssl") is None:
            raise MissingTool("the openssl command is not installed (Debian: apt-get install openssl; make tools)")
        self.home = home
        if home.exists():
            shutil.rmtree(home)
        home.mkdir(parents=True)
        home.chmod(0o700)
        self._certificates()
        for user in USERS:
            _secret_file(self.path(f"{user}.password"), secrets.token_urlsafe(18))
            _secret_file(self.path(f"{user}.client-secret"), secrets.token_urlsafe(18))
        ports = free_ports(len(self.modes) * len(broker_ids))
        self.ports = {
            bid: {mode: ports[i * len(self.modes) + j] for j, mode in enumerate(self.modes)}
            for i, bid in enumerate(broker_ids)
        }
        if "oauthbearer" in self.modes:
            from kafkatui.lab.oidc import Issuer

            clients = {u: self.path(f"{u}.client-secret").read_text(encoding="utf-8").strip() for u in USERS}
            self.oidc = Issuer(home, clients, AUDIENCE)
            self.oidc.start()
            self.token_url = self.oidc.token_url

    def _certificates(self) -> None:
        d = self.home
        _openssl(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", str(CERT_DAYS), "-subj", "/CN=kafkatui-lab-ca",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=d,
        )  # fmt: skip
        # the brokers' certificate names 127.0.0.1 only: `localhost` shows a host name mismatch
        self._leaf("broker", "kafkatui-lab-broker", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth")
        (d / "broker-keystore.pem").write_text(
            (d / "broker.key").read_text() + (d / "broker.pem").read_text(), encoding="utf-8"
        )
        (d / "broker-keystore.pem").chmod(0o600)
        for user in USERS:
            self._leaf(user, user, "extendedKeyUsage=clientAuth")
            self._encrypt_key(user)
        self._leaf("expired", "admin", "extendedKeyUsage=clientAuth", days="-1")
        self._encrypt_key("expired")
        for csr in d.glob("*.csr"):
            csr.unlink()
        for key in ("ca.key", "broker.key"):
            self.path(key).chmod(0o600)

    def _leaf(self, name: str, cn: str, extensions: str, days: str = str(CERT_DAYS)) -> None:
        d = self.home
        (d / f"{name}.ext").write_text(extensions + "\nbasicConstraints=CA:FALSE\n", encoding="utf-8")
        _openssl(
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={cn}", cwd=d,
        )  # fmt: skip
        _openssl(
            "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-set_serial", str(secrets.randbits(63)), "-out", f"{name}.pem", "-days", days,
            "-extfile", f"{name}.ext", cwd=d,
        )  # fmt: skip
        (d / f"{name}.ext").unlink()

    def _encrypt_key(self, name: str) -> None:
        """The client key, encrypted (PKCS#8, AES-256) with a password kept in ``NAME.key.password``."""
        d = self.home
        _secret_file(d / f"{name}.key.password", secrets.token_urlsafe(18))
        _openssl(
            "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", f"{name}.key", "-out", f"{name}.key.enc",
            "-passout", f"file:{name}.key.password", cwd=d,
        )  # fmt: skip
        (d / f"{name}.key.enc").replace(d / f"{name}.key")
        (d / f"{name}.key").chmod(0o600)

    # ----------------------------------------------------------------- the brokers
    def jvm_flags(self) -> list[str]:
        """System properties the brokers need: Kafka 4 fetches no OIDC URL it was not allowed to."""
        if self.oidc is None:
            return []
        return [f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={self.oidc.jwks_url},{self.oidc.token_url}"]

    def scram_format_args(self) -> list[str]:
        """`kafka-storage format` arguments that create the SCRAM users in the cluster's first metadata."""
        if "sasl_ssl" not in self.modes:
            return []
        out = []
        for user in USERS:
            out += ["--add-scram", f"{SCRAM}=[name={user},password={self.password(user)}]"]
        return out

    def scram_config_file(self, user: str) -> Path:
        """A properties file for ConfigCommand's ``--add-config-file`` (ZooKeeper mode): `user`'s SCRAM
        credential, so that the password is never on a command line. Delete it once used."""
        # Utils.loadProps keeps the value as written: no brackets, unlike --add-config's 'M=[password=P]'
        return _secret_file(self.path(f"{user}.scram.properties"), f"{SCRAM}=password={self.password(user)}")

    def amend(self, props: str, spec: NodeSpec, zookeeper: bool = False) -> str:
        """`spec`'s server.properties with ACLs on and, on a broker, the secured listeners (`zookeeper`:
        ZooKeeper mode's authorizer, and the inter-broker PLAINTEXT listener named)."""
        pairs: dict[str, str] = {}
        head = [line for line in props.splitlines() if line.startswith("#")]
        for line in props.splitlines():
            if line and not line.startswith("#"):
                key, _, value = line.partition("=")
                pairs[key] = value
        pairs["authorizer.class.name"] = ACL_AUTHORIZER if zookeeper else STANDARD_AUTHORIZER
        if zookeeper:
            # the brokers replicate over the loopback PLAINTEXT listener, as ANONYMOUS (a super user)
            pairs.setdefault("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT")
            pairs.setdefault("inter.broker.listener.name", "PLAINTEXT")
        pairs["super.users"] = "User:ANONYMOUS;User:admin"
        pairs["allow.everyone.if.no.acl.found"] = "false"
        if not spec.is_controller:
            self._broker(pairs, spec.node_id)
        return "\n".join(head) + "\n" + "".join(f"{k}={v}\n" for k, v in pairs.items())

    def _broker(self, pairs: dict[str, str], node_id: int) -> None:
        for mode in self.modes:
            name, protocol = LISTENERS[mode]
            port = self.ports[node_id][mode]
            pairs["listeners"] += f",{name}://127.0.0.1:{port}"
            pairs["advertised.listeners"] += f",{name}://127.0.0.1:{port}"
            pairs["listener.security.protocol.map"] += f",{name}:{protocol}"
        pairs.update(
            {
                "ssl.keystore.type": "PEM",
                "ssl.keystore.location": str(self.path("broker-keystore.pem")),
                "ssl.truststore.type": "PEM",
                "ssl.truststore.location": str(self.path("ca.pem")),
                "ssl.principal.mapping.rules": "RULE:^CN=([^,]+)$/$1/,DEFAULT",
            }
        )
        if "sasl_ssl" in self.modes:
            pairs["listener.name.sasl_ssl.sasl.enabled.mechanisms"] = SCRAM
            pairs[f"listener.name.sasl_ssl.{SCRAM.lower()}.sasl.jaas.config"] = (
                "org.apache.kafka.common.security.scram.ScramLoginModule required;"
            )
        if "mtls" in self.modes:
            pairs["listener.name.mtls.ssl.client.auth"] = "required"
        if "oauthbearer" in self.modes:
            assert self.oidc is not None
            pairs["listener.name.oauth.sasl.enabled.mechanisms"] = "OAUTHBEARER"
            pairs["listener.name.oauth.oauthbearer.sasl.jaas.config"] = (
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
            )
            pairs["listener.name.oauth.oauthbearer.sasl.server.callback.handler.class"] = OIDC_VALIDATOR
            pairs["sasl.oauthbearer.jwks.endpoint.url"] = self.oidc.jwks_url
            pairs["sasl.oauthbearer.expected.audience"] = AUDIENCE
            pairs["sasl.oauthbearer.expected.issuer"] = self.oidc.issuer

    def grant_reader(self, plaintext_bootstrap: str) -> None:
        """The read-only user's ACLs: Describe, DescribeConfigs and Read; nothing that changes anything."""
        from confluent_kafka.admin import (
            AclBinding,
            AclOperation,
            AclPermissionType,
            AdminClient,
            ResourcePatternType,
            ResourceType,
        )

        grants = [
            (ResourceType.TOPIC, "*", (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.READ)),
            (ResourceType.GROUP, "*", (AclOperation.DESCRIBE, AclOperation.READ)),
            (ResourceType.BROKER, "kafka-cluster", (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS)),
        ]
        bindings = [
            AclBinding(kind, name, ResourcePatternType.LITERAL, "User:reader", "*", op, AclPermissionType.ALLOW)
            for kind, name, ops in grants
            for op in ops
        ]
        admin = AdminClient({"bootstrap.servers": plaintext_bootstrap, "socket.timeout.ms": 5000})
        for fut in admin.create_acls(bindings, request_timeout=30).values():
            try:
                fut.result(60)
            except Exception as exc:  # noqa: BLE001 - said in one line by the caller
                raise StartFailed(f"the lab could not create the read-only user's ACLs: {exc}") from None

    def close(self) -> None:
        """Stop the OIDC issuer, if it serves."""
        if self.oidc is not None:
            self.oidc.stop()

    # ----------------------------------------------------------------- what a client needs
    def bootstrap(self, mode: str) -> str:
        """The bootstrap list of `mode`'s listeners."""
        return ",".join(f"127.0.0.1:{ports[mode]}" for _bid, ports in sorted(self.ports.items()))

    def client_settings(self, mode: str, user: str = "admin") -> dict[str, str]:
        """`mode`'s client settings for `user` as librdkafka keys; secrets as ``KEY_file`` paths."""
        ca = str(self.path("ca.pem"))
        if mode == "ssl":
            return {"security.protocol": "SSL", "ssl.ca.location": ca}
        if mode == "mtls":
            return {
                "security.protocol": "SSL",
                "ssl.ca.location": ca,
                "ssl.certificate.location": str(self.path(f"{user}.pem")),
                "ssl.key.location": str(self.path(f"{user}.key")),
                "ssl.key.password_file": str(self.path(f"{user}.key.password")),
            }
        if mode == "sasl_ssl":
            return {
                "security.protocol": "SASL_SSL",
                "sasl.mechanism": SCRAM,
                "sasl.username": user,
                "sasl.password_file": str(self.path(f"{user}.password")),
                "ssl.ca.location": ca,
            }
        return {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.client.id": user,
            "sasl.oauthbearer.client.secret_file": str(self.path(f"{user}.client-secret")),
            "sasl.oauthbearer.token.endpoint.url": self.token_url,
            "ssl.ca.location": ca,
        }

    def x_options(self, mode: str, user: str = "admin") -> str:
        """``-b ... -X key=value ...`` for `mode` and `user`, ready to paste."""
        words = ["-b", self.bootstrap(mode)]
        for key, value in self.client_settings(mode, user).items():
            words += ["-X", f"{key}={value}"]
        return shlex.join(words)

    def profile_snippet(self, mode: str, user: str = "admin") -> str:
        """A clusters.yaml profile for `mode` and `user` (secrets in files)."""
        conf = self.client_settings(mode, user)
        lines = [f"  lab-{mode.replace('_', '-')}-{user}:", f"    bootstrap: {self.bootstrap(mode)}"]
        lines.append(f"    security_protocol: {conf.pop('security.protocol')}")
        named = {
            "sasl.mechanism": "sasl_mechanism",
            "sasl.username": "sasl_username",
            "sasl.password_file": "password_file",
            "ssl.ca.location": "ssl_ca",
            "ssl.certificate.location": "ssl_cert",
            "ssl.key.location": "ssl_key",
            "ssl.key.password_file": "ssl_key_password_file",
        }
        rest = {}
        for key, value in conf.items():
            if key in named:
                lines.append(f"    {named[key]}: {value}")
            else:
                rest[key] = value
        if rest:
            lines.append("    config:")
            lines += [f"      {key}: {json.dumps(value)}" for key, value in rest.items()]
        return "\n".join(lines)

    def state(self) -> dict[str, Any]:
        """What lab.json keeps about security (modes, bootstraps, the files' directory)."""
        return {
            "modes": list(self.modes),
            "dir": str(self.home),
            "token_url": self.token_url or None,
            "bootstrap": {m: self.bootstrap(m) for m in self.modes},
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> LabSecurity:
        """The client side of a running lab's security, from its lab.json (`state()`)."""
        modes = tuple(state["modes"])
        per_mode = {m: [int(a.rsplit(":", 1)[1]) for a in state["bootstrap"][m].split(",")] for m in modes}
        count = len(next(iter(per_mode.values())))
        ports = {i + 1: {m: per_mode[m][i] for m in modes} for i in range(count)}
        return cls(modes, Path(state["dir"]), ports, None, state.get("token_url") or "")


_DESCRIPTION = {
    "sasl_ssl": "SASL_SSL, SCRAM-SHA-512",
    "ssl": "TLS, no client certificate (every client is ANONYMOUS: a super user)",
    "mtls": "TLS, client certificate required (principal: its CN)",
    "oauthbearer": "SASL_SSL, OAUTHBEARER (OIDC: tokens from the lab's issuer, checked against its JWKS)",
}


def banner(security: LabSecurity) -> str:
    """What `kafkatui lab --security` prints: per mode, its listeners, `-X` options and a profile."""
    lines = [
        "secured listeners (ACLs on: admin is a super user; reader may Describe, DescribeConfigs and Read, "
        f"nothing else; passwords, key passwords and client secrets are in files of mode 0600 under {security.home}):"
    ]
    for mode in security.modes:
        lines.append(f"  {mode}: {_DESCRIPTION[mode]}")
        lines.append(f"    kafkatui check {security.x_options(mode)}")
    lines.append(
        "as a profile (add to the profiles: of ~/.config/kafkatui/clusters.yaml; for reader, write reader for admin):"
    )
    for mode in security.modes:
        lines.append(security.profile_snippet(mode))
    return "\n".join(lines)
