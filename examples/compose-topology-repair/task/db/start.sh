#!/bin/sh
# Initialises the cluster once, loads init.sql, then runs PostgreSQL in the foreground.
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin | head -n 1)
data=/var/lib/postgresql/data
as_postgres() { su postgres -s /bin/sh -c "$1"; }
if [ ! -s "$data/PG_VERSION" ]; then
    as_postgres "$bin/initdb -D $data --auth=trust -U postgres" >/dev/null
    as_postgres "$bin/pg_ctl -D $data -o '-c listen_addresses=127.0.0.1 -p 5432 -k /tmp' -w start" >/dev/null
    as_postgres "psql -h 127.0.0.1 -U postgres -v ON_ERROR_STOP=1 -q -f /opt/db/init.sql"
    as_postgres "$bin/pg_ctl -D $data -w stop" >/dev/null
fi
touch /tmp/db-initialised
exec su postgres -s /bin/sh -c "exec $bin/postgres -D $data -c listen_addresses=127.0.0.1 -p 5432 -k /tmp"
