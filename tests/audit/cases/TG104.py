import sqlite3

QUERY = "SELECT id FROM runs WHERE duration_ms > 90_000"  # expect: TG104


def test_inserts_with_a_separator(db):
    db.execute("INSERT INTO runs (duration_ms) VALUES (90_000)")  # expect: TG104


def test_updates_with_a_separator(db):
    db.execute(
        "UPDATE runs SET duration_ms = 1_500 "  # expect: TG104
        "WHERE id = 1"
    )


def test_formats_a_query(db, table):
    db.execute(f"DELETE FROM {table} WHERE size > 10_000_000")  # expect: TG104


def test_creates_with_a_default(db):
    db.executescript("""
        CREATE TABLE runs (id INTEGER, budget INTEGER DEFAULT 5_000)  -- # expect: TG104
    """)


# Look-alikes: Python numbers, identifiers, SQL string data, prose.


def test_compares_in_python(db):
    (count,) = db.execute("SELECT count(*) FROM runs").fetchone()
    assert count == 90_000


def test_binds_the_number(db):
    db.execute("INSERT INTO runs (duration_ms) VALUES (?)", (90_000,))


def test_identifiers_with_digits(db):
    db.execute("SELECT col_1_2 FROM table_2020_01")


def test_a_string_literal_in_sql(db):
    db.execute("INSERT INTO labels (text) VALUES ('90_000')")


def test_prose_with_a_number():
    message = "select 10_000 rows from the list"
    assert message


def test_a_docstring_about_sql():
    """SELECT * FROM runs WHERE duration_ms > 90_000 is what the old code sent."""


def test_a_version_string():
    assert "1.2_3" != "INSERT INTO x VALUES (1)"


def test_lower_case_sql(db):
    db.execute("select id from runs where duration_ms > 90_000")  # expect: TG104


def test_prose_about_deleting():
    assert "delete from the cache after 1_000 reads" != ""
