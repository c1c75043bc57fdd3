"""PostgreSQL for the test suite: the stock backend, with a flush that deletes rows instead of
truncating tables (see ``base``)."""
