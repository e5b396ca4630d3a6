"""Usernames are unique ignoring case, in the database too (two registrations of "Ana" and "ana"
racing past the form's check): a unique index on UPPER(username), the expression Django's
``username__iexact`` compares on PostgreSQL (SQLite's UPPER folds ASCII, as its LIKE does)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("games", "0002_analysis"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE UNIQUE INDEX auth_user_username_upper_uniq ON auth_user (UPPER(username));",
            reverse_sql="DROP INDEX auth_user_username_upper_uniq;",
        ),
    ]
