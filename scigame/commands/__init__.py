"""The `scigame` commands, one module per family; `scigame.cli` gathers them
into the one click group. Every module imports only click and light helpers
at the top: each command imports what it needs when it runs, so `scigame
--version` and `scigame lint` stay fast."""
