"""The Apache Kafka releases `kafkatui lab` can start, and what each needs (Java, logging jars, mode)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KafkaRelease:
    """One Kafka release as the lab runs it."""

    version: str  # exact Maven version, e.g. "4.4.0"
    log4j2: bool  # 4.x logs through log4j2 (YAML config); 2.8 and 3.9 through reload4j (properties)
    java: int  # the lowest Java major version its brokers run on
    zookeeper: bool = False  # ZooKeeper mode (a ZooKeeper server plus brokers, one of them the controller)

    @property
    def line(self) -> str:
        """Major.minor, e.g. "4.4"."""
        return ".".join(self.version.split(".")[:2])

    @property
    def key(self) -> str:
        """The name `--version` takes for the line: "4.4", "3.9", "3.9-zk", "2.8" (ZooKeeper only)."""
        return f"{self.line}-zk" if self.zookeeper and self.line in KRAFT_AND_ZK else self.line

    @property
    def mode(self) -> str:
        """ "ZooKeeper" or "KRaft"."""
        return "ZooKeeper" if self.zookeeper else "KRaft"


RELEASES: dict[str, KafkaRelease] = {
    "4.4": KafkaRelease("4.4.0", log4j2=True, java=17),
    "4.3": KafkaRelease("4.3.1", log4j2=True, java=17),
    "4.2": KafkaRelease("4.2.2", log4j2=True, java=17),
    "4.1": KafkaRelease("4.1.2", log4j2=True, java=17),
    "4.0": KafkaRelease("4.0.2", log4j2=True, java=17),
    "3.9": KafkaRelease("3.9.2", log4j2=False, java=11),
    "3.9-zk": KafkaRelease("3.9.2", log4j2=False, java=11, zookeeper=True),
    "2.8": KafkaRelease("2.8.2", log4j2=False, java=8, zookeeper=True),
}
"""Lines kafkatui is tested against: the newest patch release of each that Maven Central serves
(`make test`: 4.4, 3.9, 3.9-zk, 2.8; `make test-matrix`: 4.3, 4.2, 4.1, 4.0)."""

KRAFT_AND_ZK = ("3.9",)
"""Lines the lab runs in both modes: "-zk" picks ZooKeeper mode."""

DEFAULT = "4.4"


def release(name: str) -> KafkaRelease:
    """The release for "4.4", "3.9-zk", "4.1.1", "3.9.1-zk"...; ValueError naming the supported ones otherwise."""
    if name in RELEASES:
        return RELEASES[name]
    zk = name.endswith("-zk")
    exact = name.removesuffix("-zk")
    parts = exact.split(".")
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        line = ".".join(parts[:2])
        key = f"{line}-zk" if zk else line
        if key in RELEASES:
            base = RELEASES[key]
            return KafkaRelease(exact, base.log4j2, base.java, base.zookeeper)
    supported = ", ".join(f"{k} ({v.version})" for k, v in RELEASES.items())
    raise ValueError(f"unsupported Kafka version {name!r}: use one of {supported}, or an exact X.Y.Z of those lines")
