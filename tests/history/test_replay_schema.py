"""The replay output schema is written once: the reader's row types have the Spark tables' columns."""

from __future__ import annotations

from dataclasses import fields

from kafkatui.history.replay import schema


def test_the_readers_row_types_have_the_spark_tables_columns() -> None:
    assert tuple(f.name for f in fields(schema.MinuteCounts)) == schema.TIMELINE.names
    assert tuple(f.name for f in fields(schema.Incident)) == schema.INCIDENTS.names


def test_the_summary_holds_every_table_the_job_writes_as_parquet() -> None:
    summary = {f.name for f in fields(schema.Summary)}
    assert {t.name for t in schema.SUMMARY_TABLES} <= summary


def test_the_ddl_is_what_spark_reads() -> None:
    assert schema.BROKERS.ddl == "broker int, shrinks long, expands long, flapping_score double"


def test_the_report_names_every_output_folder() -> None:
    text = schema.outputs_text()
    for name in (schema.SUMMARY_FILE, schema.INTERVALS, *(f"{t.name}/" for t in schema.SUMMARY_TABLES)):
        assert name in text
    assert "frames/partitions/" in text and "frames/brokers/" in text
