import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("experiments", "0005_preflight_report"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="health",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AlterField(
            model_name="runevent",
            name="kind",
            field=models.CharField(
                choices=[
                    ("curriculum", "Curriculum"),
                    ("pause", "Pause"),
                    ("resume", "Resume"),
                    ("budget", "Budget"),
                    ("health", "Health"),
                ],
                max_length=16,
            ),
        ),
        migrations.CreateModel(
            name="HealthSettings",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("settings", models.JSONField(default=dict)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "team",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="health_settings",
                        to="accounts.team",
                    ),
                ),
                (
                    "updated_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
    ]
