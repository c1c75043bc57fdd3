"""The stock PostgreSQL backend whose flush empties tables with DELETE instead of TRUNCATE.

A transactional test (a live server, a real worker) ends with a flush of every table. TRUNCATE
gives each of the ~50 tables a new file and waits for a lock no open transaction may hold:
over two seconds a flush on the loaded CI machine, for tables that hold a few rows. DELETE
empties the same tables in about a tenth of a second. Every foreign key Django creates is
DEFERRABLE INITIALLY DEFERRED, so the order of the deletes does not matter inside the flush's
transaction; sequences are reset only when the flush asks, as TRUNCATE ... RESTART IDENTITY
would.
"""

from __future__ import annotations

from django.db.backends.postgresql import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):  # type: ignore[no-untyped-def]
        if not tables or allow_cascade:  # CASCADE also empties tables outside ``tables``
            return super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        statements = ["SET CONSTRAINTS ALL DEFERRED;"]
        statements += [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};"
            for table in tables
        ]
        if reset_sequences:
            sequences = [
                sequence
                for table in tables
                for sequence in self.connection.introspection.get_sequences(
                    self.connection.cursor(), table
                )
            ]
            statements += self.sequence_reset_by_name_sql(style, sequences)
        return statements


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
