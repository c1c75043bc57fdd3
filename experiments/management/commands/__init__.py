"""`manage.py export_checkpoint`."""
