"""The postmortem report of a replayed day: facts, chart, Markdown and HTML, and the command. No textual."""
