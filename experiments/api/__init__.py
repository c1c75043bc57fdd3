"""The experiments REST API: one module per concept, registered in experiments/urls.py."""
