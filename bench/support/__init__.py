"""Helpers the benches share (not a bench: ``make bench`` runs only ``bench/*.py``)."""
