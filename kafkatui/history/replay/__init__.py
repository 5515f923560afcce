"""The PySpark replay job: its inputs, stages, output schema, Spark session and `kafkatui replay`."""
