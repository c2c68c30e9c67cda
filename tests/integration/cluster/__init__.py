# A package, so this folder's conftest.py is imported as cluster.conftest and
# never takes the place of tests/conftest.py as `conftest`.
