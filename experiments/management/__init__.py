"""Management commands of the experiments app."""
