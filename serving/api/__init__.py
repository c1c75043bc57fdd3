"""The serving REST API (deployments and canaries), registered in serving/urls.py."""
