"""Everything a replay wrote under one output (a path or any Hadoop URI), read back through Spark, so two
runs of the job (local mode, a cluster, HDFS) can be compared whole: summary.json, every Parquet table,
and every frame line with the folder it is in."""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql import functions as F

TABLES = ("intervals", "timeline", "brokers", "incidents", "top_partitions")


def outputs(spark: Any, out: str) -> dict[str, Any]:
    """summary.json (without the input locations, which differ by run), the tables as sorted rows, and
    the frames as sorted (folder under frames/, line) pairs."""
    out = out.rstrip("/")
    summary = json.loads(spark.read.text(f"{out}/summary.json", wholetext=True).first()[0])
    summary["inputs"].pop("history")
    summary["inputs"].pop("broker_logs")
    got: dict[str, Any] = {"summary": summary}
    for name in TABLES:
        got[name] = sorted(tuple(r) for r in spark.read.parquet(f"{out}/{name}").collect())
    frames = (
        spark.read.option("recursiveFileLookup", "true")
        .option("pathGlobFilter", "*.json.gz")
        .text(f"{out}/frames")
        .select(F.regexp_extract(F.input_file_name(), r"/frames/(.*)/[^/]+$", 1).alias("folder"), "value")
    )
    got["frames"] = sorted(tuple(r) for r in frames.collect())
    return got


def assert_same(spark: Any, reference: str, out: str) -> None:
    """`out` holds what `reference` holds, output by output (a mismatch names the output)."""
    want, got = outputs(spark, reference), outputs(spark, out)
    assert want["frames"] and want["incidents"], "the reference replay wrote no frames or incidents"
    for key in want:
        assert got[key] == want[key], key
