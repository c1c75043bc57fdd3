from django.apps import AppConfig


class ServingConfig(AppConfig):
    name = "serving"
    verbose_name = "Deployments, replicas and canaries"

    def ready(self) -> None:
        from experiments.services import releases

        from .services import canaries, deployments

        # The registry refuses to delete a deployed model, and a report lists the canaries
        # of its checkpoint: experiments asks through these, never importing this app.
        releases.register_deployment_finder(deployments.slugs_of_model)
        releases.register_canary_finder(canaries.of_checkpoint)
