"""Serving workflows: routing <- deployments <- canaries (each imports only those before it),
with the replicas, the generate path and traffic replay on top."""
