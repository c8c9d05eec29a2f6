"""pytest plugin: lets test files that use ``except*`` run on 3.8-3.10."""
