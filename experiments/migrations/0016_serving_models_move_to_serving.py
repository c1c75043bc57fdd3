"""Deployments, replicas, canaries and served requests move to the serving app.

Only Django's idea of which app holds them changes: the tables, their rows, constraints and
indexes stay as they are (``serving`` keeps the table names with ``db_table``), and
``serving.0001_initial`` takes the models into its state before this drops them from ours.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0015_metric_point_replaces"),
        ("serving", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='servedrequest',
                    name='canary',
                ),
                migrations.RemoveField(
                    model_name='deployment',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='deployment',
                    name='registered_model',
                ),
                migrations.RemoveField(
                    model_name='deployment',
                    name='team',
                ),
                migrations.RemoveField(
                    model_name='deployment',
                    name='version',
                ),
                migrations.RemoveField(
                    model_name='servedrequest',
                    name='deployment',
                ),
                migrations.RemoveField(
                    model_name='replica',
                    name='deployment',
                ),
                migrations.RemoveField(
                    model_name='replica',
                    name='version',
                ),
                migrations.RemoveField(
                    model_name='servedrequest',
                    name='version',
                ),
                migrations.DeleteModel(
                    name='Canary',
                ),
                migrations.DeleteModel(
                    name='Deployment',
                ),
                migrations.DeleteModel(
                    name='Replica',
                ),
                migrations.DeleteModel(
                    name='ServedRequest',
                ),
            ],
            database_operations=[],
        ),
    ]
