"""The dashboard's write screens (config change, elections, RF change, revert) and their worker glue."""
