import re
import secrets

from django.db import migrations, models


def new_replica_secret() -> str:
    """The field's default as it was when this migration was made (the model has since
    moved to the serving app, which keeps its own copy)."""
    return secrets.token_urlsafe(32)


def fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Each existing replica its own secret (a field default is computed once for all rows),
    no address in a replica's message, and what earlier verdicts were judged against: those
    that named a task used the pool, those without one the caller's answer."""
    Replica = apps.get_model("experiments", "Replica")
    for replica in Replica.objects.only("pk", "message"):
        message = re.sub(r" at https?://\S+", "", replica.message)
        Replica.objects.filter(pk=replica.pk).update(
            secret=secrets.token_urlsafe(32), message=message
        )
    ServedRequest = apps.get_model("experiments", "ServedRequest")
    judged = ServedRequest.objects.filter(passed__isnull=False)
    judged.exclude(task="").update(judged_against="pool")
    judged.filter(task="").update(judged_against="caller")


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0012_review_roles_and_overrides"),
    ]

    operations = [
        migrations.AddField(
            model_name="replica",
            name="secret",
            field=models.CharField(
                default=new_replica_secret,
                editable=False,
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="servedrequest",
            name="judged_against",
            field=models.CharField(
                blank=True,
                choices=[("", "Nothing"), ("pool", "Pool"), ("caller", "Caller")],
                default="",
                max_length=10,
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
