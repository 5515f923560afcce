"""Kafka's own command-line tools (kafka-topics.sh, kafka-configs.sh, ...) run from the lab's jars.

The shell scripts are only launchers for these main classes; running the classes directly with the
tarball's tools logging gives the same behaviour without a tarball.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from kafkatui.lab import config
from kafkatui.lab.fetch import ensure_jars, libs_dir, require_java
from kafkatui.lab.versions import KafkaRelease

MAIN_CLASSES: dict[str, str] = {
    "kafka-topics.sh": "org.apache.kafka.tools.TopicCommand",
    "kafka-configs.sh": "kafka.admin.ConfigCommand",
    "kafka-leader-election.sh": "org.apache.kafka.tools.LeaderElectionCommand",
    "kafka-reassign-partitions.sh": "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
    "kafka-metadata-quorum.sh": "org.apache.kafka.tools.MetadataQuorumCommand",
    "kafka-storage.sh": "kafka.tools.StorageTool",
    "kafka-features.sh": "org.apache.kafka.tools.FeatureCommand",
    "kafka-producer-perf-test.sh": "org.apache.kafka.tools.ProducerPerformance",
    "kafka-broker-api-versions.sh": "org.apache.kafka.tools.BrokerApiVersionsCommand",
    "kafka-acls.sh": "org.apache.kafka.tools.AclCommand",
    "kafka-get-offsets.sh": "org.apache.kafka.tools.GetOffsetShell",
}
"""The scripts of Kafka's bin/ that kafkatui's advice names, and their main classes (4.x)."""

MAIN_CLASSES_44 = {
    "kafka-configs.sh": "org.apache.kafka.tools.ConfigCommand",
}
"""Where Kafka 4.4 moved a tool out of core (kafka.admin.ConfigCommand is gone from its jars)."""

MAIN_CLASSES_3 = {
    "kafka-broker-api-versions.sh": "kafka.admin.BrokerApiVersionsCommand",
    "kafka-acls.sh": "kafka.admin.AclCommand",
}
"""Where Kafka 3.9 still had a tool in core (Scala) that 4.x moved to kafka-tools."""

MAIN_CLASSES_2 = {
    **MAIN_CLASSES_3,
    "kafka-topics.sh": "kafka.admin.TopicCommand",
    "kafka-leader-election.sh": "kafka.admin.LeaderElectionCommand",
    "kafka-reassign-partitions.sh": "kafka.admin.ReassignPartitionsCommand",
    "kafka-features.sh": "kafka.admin.FeatureCommand",
    "kafka-get-offsets.sh": "kafka.tools.GetOffsetShell",
}
"""Kafka 2.8's tools, all but ProducerPerformance still in core (Scala); it has no kafka-metadata-quorum.sh."""


def tools_log_config(rel: KafkaRelease) -> list[str]:
    """The JVM flag that gives the tools the tarball's tools logging (WARN to stderr)."""
    base = libs_dir(rel).parent
    if rel.log4j2:
        path = base / "tools-log4j2.yaml"
        if not path.exists():
            path.write_text(config.TOOLS_LOG4J2_YAML, encoding="utf-8")
        return [f"-Dlog4j2.configurationFile={path}"]
    path = base / "tools-log4j.properties"
    if not path.exists():
        path.write_text(config.TOOLS_LOG4J_PROPERTIES, encoding="utf-8")
    return [f"-Dlog4j.configuration=file:{path}"]


def _main_classes(rel: KafkaRelease) -> dict[str, str]:
    """The scripts' main classes in `rel`'s jars."""
    major, minor = (int(x) for x in rel.line.split("."))
    if major == 2:
        return {**MAIN_CLASSES, **MAIN_CLASSES_2}
    if major == 3:
        return {**MAIN_CLASSES, **MAIN_CLASSES_3}
    return {**MAIN_CLASSES, **MAIN_CLASSES_44} if (major, minor) >= (4, 4) else dict(MAIN_CLASSES)


def tool_command(rel: KafkaRelease, script: str, args: list[str]) -> list[str]:
    """The java command line that runs `script` (e.g. "kafka-topics.sh") with `args`."""
    libs: Path = ensure_jars(rel)
    main = _main_classes(rel).get(script, script)
    return [
        require_java(rel),
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-XX:-UsePerfData",
        *tools_log_config(rel),
        "-cp",
        f"{libs}/*",
        main,
        *args,
    ]


def run_printed_command(
    rel: KafkaRelease, command: str, cwd: Path, timeout: float = 180.0
) -> subprocess.CompletedProcess[str]:
    """Run one command line as kafkatui prints it, the way a user pasting it would, with Kafka's tools
    from the lab's jars: `printf '%s\\n' 'TEXT' > FILE` writes FILE; `kafka-X.sh ARGS [| filter]` runs the
    tool (the filter after a pipe is not run: the tool's own exit code and output are what is judged)."""
    import shlex

    words = shlex.split(command.split(" | ")[0])
    if words[:2] == ["printf", "%s\\n"] and len(words) == 5 and words[3] == ">":
        (cwd / words[4]).write_text(words[2] + "\n", encoding="utf-8")
        return subprocess.CompletedProcess(words, 0, "", "")
    if not words or words[0] not in MAIN_CLASSES:
        raise ValueError(f"not a Kafka tool command: {command[:120]}")
    return subprocess.run(
        tool_command(rel, words[0], words[1:]), capture_output=True, text=True, timeout=timeout, cwd=cwd
    )
