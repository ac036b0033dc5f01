"""Test helpers that ship with scigame (no network, no money spent)."""
