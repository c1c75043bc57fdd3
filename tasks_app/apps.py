from django.apps import AppConfig


class TasksAppConfig(AppConfig):
    name = "tasks_app"
    verbose_name = "Task families, verifiers and curricula"

    def ready(self) -> None:
        from tasks_app.services import links

        links.register()
