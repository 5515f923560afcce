"""The Apache Kafka releases `kafkatui lab` can start, and what each needs (Java, logging jars)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KafkaRelease:
    """One Kafka release as the lab runs it."""

    version: str  # exact Maven version, e.g. "4.1.1"
    log4j2: bool  # 4.x logs through log4j2 (YAML config); 3.9 through reload4j (properties)
    java: int  # the lowest Java major version its brokers run on

    @property
    def line(self) -> str:
        """Major.minor, e.g. "4.1"."""
        return ".".join(self.version.split(".")[:2])


RELEASES: dict[str, KafkaRelease] = {
    "4.1": KafkaRelease("4.1.1", log4j2=True, java=17),
    "4.0": KafkaRelease("4.0.1", log4j2=True, java=17),
    "3.9": KafkaRelease("3.9.1", log4j2=False, java=11),
}
"""Lines kafkatui is tested against (4.1 and 3.9 in `make test`; 4.0 starts the same way)."""

DEFAULT = "4.1"


def release(name: str) -> KafkaRelease:
    """The release for "4.1", "3.9", "4.1.1"...; ValueError naming the supported ones otherwise."""
    if name in RELEASES:
        return RELEASES[name]
    for rel in RELEASES.values():
        if rel.version == name:
            return rel
    parts = name.split(".")
    if len(parts) == 3 and ".".join(parts[:2]) in RELEASES and all(p.isdigit() for p in parts):
        base = RELEASES[".".join(parts[:2])]
        return KafkaRelease(name, base.log4j2, base.java)
    supported = ", ".join(f"{k} ({v.version})" for k, v in RELEASES.items())
    raise ValueError(f"unsupported Kafka version {name!r}: use one of {supported}, or an exact X.Y.Z of those lines")
