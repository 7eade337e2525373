#!/usr/bin/env bash
# What the file-name search's empty months cost (docs/benchmarks.md, Empty months): the same 100,000 jobs of the
# last year with a year of month partitions in job_file_name, then with ten years of them (the nine older ones empty,
# as retention leaves them when they are not dropped), then after job_file_name_drop_months() (V23). For each, RUNS
# fresh connections (a pooled connection's first calls) each
#   - plan one month's search, as the application's first search on a connection does (the partitions' descriptions
#     read from the catalog)
#   - delete the 1,000 oldest jobs twice (rolled back), as a retention batch does: the names' trigger
#     (job_file_name_gone) looks each job's name up among every month
# and the medians are given with their ratio to the year's. Report: target/benchmarks/empty-months.txt.
#
#   ops/bench/empty-months.sh                       # about two minutes
#   RUNS=21 PG_BIN=/path/to/postgresql/bin ops/bench/empty-months.sh
#
# PostgreSQL 13 or later: a cluster of its own in a temp folder from the machine's server binaries (PG_BIN, default the
# newest /usr/lib/postgresql/*/bin), migrated with psql from src/main/resources/db/migration, its sessions in UTC.
# Needs psql; run as root, the cluster runs as the user postgres (Debian: apt-get install -y postgresql).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v psql >/dev/null || { echo "needs psql on the PATH (Debian: apt-get install -y postgresql-client)" >&2; exit 2; }

RUNS=${RUNS:-11}
export PGTZ=UTC
need_pg_bin
[ "$("$PG_BIN/postgres" --version | sed 's/[^0-9]*\([0-9]*\).*/\1/')" -ge 13 ] || { echo "needs PostgreSQL 13 or later" >&2; exit 2; }
WORK=$(mktemp -d /tmp/ingestor-months.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$REPORT_DIR"
REPORT=$REPORT_DIR/empty-months.txt

sql() { psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d ingestor -qAt -v ON_ERROR_STOP=1 "$@"; }
cleanup() {
    stop_scratch_pg
    rm -rf "$WORK"
}
trap cleanup EXIT

start_scratch_pg "$WORK"
psql -h 127.0.0.1 -p "$PGPORT" -U postgres -qAt -c "CREATE DATABASE ingestor" >/dev/null
printf '%s\n' "$REPO_DIR"/src/main/resources/db/migration/V*.sql | sort -V | while read -r migration; do
    sql -1 -f "$migration" >/dev/null 2>"$WORK/migration.log" || { cat "$WORK/migration.log" >&2; exit 1; }
done

# 100,000 jobs over the last 360 days, their months made as housekeeping made them
months_back() { # FROM TO: the months FROM to TO months before this one (UTC), as housekeeping makes them
    sql -c "SELECT job_file_name_month((date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => m))
            AT TIME ZONE 'UTC') FROM generate_series($1, $2) m" >/dev/null
}
months_back 0 12
sql -c "INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, received_at, updated_at)
        SELECT gen_random_uuid(), 'ACME', 'COMPLETED', 'K:' || md5(n::text) || md5(n::text), 'file-' || n || '.csv',
               1, 'bench', 'r-' || n, now() - n * interval '311 seconds', now()
        FROM generate_series(1, 100000) n" >/dev/null
sql -c "ANALYZE" >/dev/null

# one month's search (the named side of a page, JobSearch), planned on a fresh connection; prints planning ms. The
# application plans each search for its values (JobSearch: no server-prepared statement), as here.
SEARCH="SELECT f.job_id, f.received_at FROM job_file_name f WHERE f.received_at >= \$1 AND f.received_at < \$2
        AND f.file_name ILIKE \$3 ESCAPE '\\' ORDER BY f.received_at DESC, f.job_id DESC LIMIT 26"
ARGS="(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
       (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC', '%e-77%')"
first_search() {
    sql -c "PREPARE s(timestamptz, timestamptz, text) AS $SEARCH" \
        -c "EXPLAIN (ANALYZE, SUMMARY, TIMING OFF, COSTS OFF) EXECUTE s$ARGS" | sed -n 's/^Planning Time: \([0-9.]*\) ms/\1/p'
}
# retention's delete of the 1,000 oldest jobs (rolled back) twice on a fresh connection: prints the names' trigger's
# ms (job_file_name_gone) of the first and of the second
DELETE="EXPLAIN (ANALYZE, COSTS OFF) DELETE FROM import_job
        WHERE id IN (SELECT id FROM import_job ORDER BY received_at, id LIMIT 1000)"
trigger_ms() {
    sql -c "BEGIN" -c "$DELETE" -c "ROLLBACK" -c "BEGIN" -c "$DELETE" -c "ROLLBACK" \
        | sed -n 's/^Trigger job_file_name_gone on import_job: time=\([0-9.]*\) .*/\1/p' | paste -sd' '
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() { # LABEL
    local months first deletes
    months=$(sql -c "SELECT count(*) FROM pg_inherits WHERE inhparent = 'job_file_name'::regclass")
    first=$(for _ in $(seq "$RUNS"); do first_search; done | median)
    deletes=$(for _ in $(seq "$RUNS"); do trigger_ms; done)
    echo "$1|$months|$first|$(echo "$deletes" | cut -d' ' -f1 | median)|$(echo "$deletes" | cut -d' ' -f2 | median)"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }

log "measuring, $RUNS fresh connections a figure"
YEAR=$(measure "a year of months")
months_back 13 120
TEN=$(measure "ten years of months, nine of them empty")
DROPPED=$(sql -c "SELECT count(*) FROM job_file_name_drop_months((SELECT min(received_at) FROM import_job))")
# the catalog's rows of 109 tables dropped at once, vacuumed as autovacuum would (housekeeping drops a month at a time)
sql -c "VACUUM" >/dev/null
AFTER=$(measure "after job_file_name_drop_months() ($DROPPED dropped)")
{
    echo "Empty months of the file-name search: $(psql --version | head -1), server $("$PG_BIN/postgres" --version)"
    echo "100,000 jobs over 360 days, median of $RUNS fresh connections: the planning of one month's search, the"
    echo "names' trigger of a delete of the 1,000 oldest jobs (rolled back), the first and the second on a connection"
    printf '%-50s %10s %18s %18s %18s\n' "" partitions "search plan, ms" "delete, first" "delete, second"
    IFS='|' read -r _ _ base_first base_delete base_again <<<"$YEAR"
    for row in "$YEAR" "$TEN" "$AFTER"; do
        IFS='|' read -r label months first delete again <<<"$row"
        printf '%-50s %10s %10s (%s) %10s (%s) %10s (%s)\n' "$label" "$months" "$first" "$(ratio "$first" "$base_first")" \
            "$delete" "$(ratio "$delete" "$base_delete")" "$again" "$(ratio "$again" "$base_again")"
    done
} | tee "$REPORT"
