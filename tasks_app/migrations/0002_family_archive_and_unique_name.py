import django.db.models.functions.text
from django.db import migrations, models


def rename_duplicate_names(apps, schema_editor):
    """Families of one team that share a name (case aside) keep it once; the others take their
    slug in brackets, so the new constraint holds and each stays recognisable."""
    family_model = apps.get_model("tasks_app", "TaskFamily")
    seen = set()
    for family in family_model.objects.order_by("team_id", "created_at", "id"):
        key = (family.team_id, family.name.lower())
        if key in seen:
            family.name = f"{family.name} ({family.slug})"[:120]
            family.save(update_fields=["name"])
        seen.add((family.team_id, family.name.lower()))


class Migration(migrations.Migration):

    dependencies = [
        ("tasks_app", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="taskfamily",
            name="archived_at",
            field=models.DateTimeField(
                blank=True,
                help_text="Set when a family that something pins was removed: hidden and read-only.",
                null=True,
            ),
        ),
        migrations.RunPython(rename_duplicate_names, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="taskfamily",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("name"),
                models.F("team"),
                name="family_name_per_team",
            ),
        ),
    ]
