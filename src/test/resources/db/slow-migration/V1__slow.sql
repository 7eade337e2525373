-- a migration longer than the statement and socket timeouts DatabaseTimeoutsTest gives its pool
SELECT pg_sleep(2.5);
CREATE TABLE slow_migration_done (id int);
