"""Small builders for hand-made snapshots."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kafkatui.model.snapshot import (
    DYNAMIC_TOPIC_CONFIG,
    STATIC_BROKER_CONFIG,
    BrokerInfo,
    ClusterSnapshot,
    ConfigValue,
    PartitionInfo,
    ReplicaLog,
    TopicInfo,
)

# (leader, replicas, isr) per partition
Spec = tuple[int, Sequence[int], Sequence[int]]


def topic(name: str, specs: Iterable[Spec], *, internal: bool = False, **configs: str) -> TopicInfo:
    """A topic whose partitions are numbered in order; keyword configs are topic overrides
    (underscores stand for dots: min_insync_replicas="2")."""
    return _topic(name, specs, internal, configs)


def _topic(name: str, specs: Iterable[Spec], internal: bool, configs: dict[str, str]) -> TopicInfo:
    parts = tuple(
        PartitionInfo(name, i, leader, tuple(reps), tuple(isr)) for i, (leader, reps, isr) in enumerate(specs)
    )
    cfg = {k.replace("_", "."): ConfigValue(v, DYNAMIC_TOPIC_CONFIG) for k, v in configs.items()}
    return TopicInfo(name, parts, internal=internal, configs=cfg)


def healthy(name: str, n: int, rf: int = 3, brokers: int = 3, **configs: str) -> TopicInfo:
    """n fully in-sync partitions led by their preferred leader, replicas spread round-robin."""
    specs = []
    for i in range(n):
        reps = [((i + j) % brokers) + 1 for j in range(rf)]
        specs.append((reps[0], reps, reps))
    return _topic(name, specs, False, configs)


def snap(
    *topics: TopicInfo,
    brokers: Iterable[int] = (1, 2, 3),
    racks: dict[int, str] | None = None,
    broker_configs: dict[str, str] | None = None,
    controller: int = 1,
    log_dirs: dict[tuple[str, int, int], ReplicaLog] | None = None,
    problems: tuple[str, ...] = (),
) -> ClusterSnapshot:
    """A snapshot; broker_configs are static broker settings reported by every broker."""
    ids = list(brokers)
    bcfg = {k: ConfigValue(v, STATIC_BROKER_CONFIG) for k, v in (broker_configs or {}).items()}
    return ClusterSnapshot(
        cluster_id="test",
        controller_id=controller,
        brokers=tuple(BrokerInfo(b, f"broker{b}.example", 9092, (racks or {}).get(b)) for b in ids),
        topics={t.name: t for t in topics},
        broker_configs={b: dict(bcfg) for b in ids} if bcfg else {},
        log_dirs=log_dirs,
        partial=bool(problems),
        problems=problems,
        bootstrap="kafka:9092",
    )
