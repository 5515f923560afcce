"""Which Kafka release the simulator answers as: its ApiVersions ranges and its min ISR rule.

By default the simulator advertises every version it serves (they read as Kafka 4.3: it serves no
4.4-only version). Given a release line ("3.6", "2.8", ...) it advertises what a real broker of that
line does, as far as it serves it: each API's range cut to that line's (the real brokers' answers
kafka-python keeps in ``kafka.protocol.broker_version_data``), APIs the line lacks left out. It then
behaves as that line for min ISR: from 3.7 a partition's leader holds acks=all to
``min(min.insync.replicas, RF)`` (KAFKA-15583), and holds the high watermark while the ISR is under
that minimum (acks=1 writes stay invisible to consumers until the ISR is back); before 3.7 it holds
acks=all to min.insync.replicas itself, so a topic whose min ISR is above its RF rejects every acks=all
write with NOT_ENOUGH_REPLICAS, and the high watermark follows the ISR whatever its size.
"""

from __future__ import annotations

from kafka.protocol.broker_version_data import BROKER_API_VERSIONS

from kafkatui.model.rules import CAP_SINCE, KafkaVersion, Line, version_from_api_versions

LINES: dict[str, Line] = {f"{v[0]}.{v[1]}": (v[0], v[1]) for v in BROKER_API_VERSIONS if len(v) == 2 and v >= (2, 8)}
"""The release lines the simulator can answer as."""


def parse_line(text: str | None) -> Line | None:
    """ "3.9" -> (3, 9); None or "" -> None (the simulator's own, newest ranges); ValueError otherwise."""
    if not text:
        return None
    line = LINES.get(str(text).strip())
    if line is None:
        raise ValueError(f"unknown Kafka version {text!r} for the simulator (one of {', '.join(LINES)})")
    return line


def caps_min_isr(line: Line | None) -> bool:
    """Whether brokers of `line` cap min ISR at the replica count (None: the newest, which do)."""
    return line is None or line >= CAP_SINCE


def advertised(served: list[tuple[int, int, int]], line: Line | None) -> list[tuple[int, int, int]]:
    """(api key, min, max) to advertise: what the simulator serves, cut to `line`'s ranges."""
    if line is None:
        return served
    real = BROKER_API_VERSIONS[line]
    out = []
    for key, lo, hi in served:
        if key not in real:
            continue
        rlo, rhi = real[key]
        a, b = max(lo, rlo), min(hi, rhi)
        if a <= b:
            out.append((key, a, b))
    return out


def served() -> list[tuple[int, int, int]]:
    """(api key, min, max) of every API the simulator serves."""
    from kafkatui.sim.handlers import register_all
    from kafkatui.sim.protocol import REGISTRY

    register_all()
    return [(s.key, s.min_version, s.max_version) for s in sorted(REGISTRY.values(), key=lambda s: s.key)]


def sim_version(line: Line | None) -> KafkaVersion:
    """What a client learns of the simulator's version from its ApiVersions answer (one broker's,
    times the brokers: they all answer alike)."""
    return version_from_api_versions({k: (lo, hi) for k, lo, hi in advertised(served(), line)})
