"""How long a Pilot test waits for a condition before it fails. The wait ends as soon as the condition
holds, so a long deadline costs nothing on a quiet machine; 5 s failed at load 30 (two cores shared with
labs and Spark jobs)."""

WAIT = 30.0
