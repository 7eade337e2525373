#!/usr/bin/env bash
# One, two and three instances of the packaged jar on one PostgreSQL and one Kafka broker, the same load, in one
# run: throughput and p99 of new and duplicate pushes, the pipeline finishing the new ones (jobs completed, events
# in Kafka), PostgreSQL's CPU, and the contention pathologies: lock waits (pg_stat_activity sampled), deadlocks
# (pg_stat_database), repeated work (jobs, items, outbox rows and Kafka events against what was sent; takeovers).
# Report: target/benchmarks/multi-instance.txt. docs/benchmarks.md has the figures and what they predict.
#
#   ops/bench/multi-instance.sh                     # setups 1 2 3, about 6 minutes
#   SETUPS="1 3" SECONDS_PER_PHASE=10 ops/bench/multi-instance.sh
#
# PostgreSQL: a cluster of its own in a temp folder from the machine's server binaries (PG_BIN, default the newest
# /usr/lib/postgresql/*/bin; Debian: apt-get install -y postgresql), fsync and synchronous commits on as in the
# embedded default, one database per setup. Kafka: the first instance's embedded broker on a fixed port, a fresh
# one per setup; the others point at it. Instances share the raw-file folder (as they must) and have their own
# data folder, HTTP port and ingestor.instance-id. Load: one wrk per instance in parallel, CONNECTIONS (32) split
# over them; duplicates are pushed to the instance after the one that took the content in (its own cache misses).
# Knobs: SETUPS ("1 2 3"), SECONDS_PER_PHASE (15), WARMUP_SECONDS (5), CONNECTIONS (32), DUP_SET (1000),
# JAVA_OPTS (default -Xmx512m), KEEP (1: keep the folder). Run as root, the cluster runs as the user postgres.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need wrk java curl psql /usr/bin/time

SETUPS=${SETUPS:-1 2 3}
SECONDS_PER_PHASE=${SECONDS_PER_PHASE:-15}
WARMUP_SECONDS=${WARMUP_SECONDS:-5}
CONNECTIONS=${CONNECTIONS:-32}
DUP_SET=${DUP_SET:-1000}
export JAVA_OPTS=${JAVA_OPTS:--Xmx512m}
need_pg_bin
WORK=$(mktemp -d /tmp/ingestor-multi.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$REPORT_DIR"
REPORT=$REPORT_DIR/multi-instance.txt
PIDS=()
SAMPLER=

sql() { psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$1" -qAt -v ON_ERROR_STOP=1 -c "$2"; }

cleanup() {
    [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null || true
    [ ${#PIDS[@]} -gt 0 ] && stop_pids "${PIDS[@]}"
    stop_scratch_pg
    [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT

start_scratch_pg "$WORK" "-c max_connections=200"
POSTMASTER=$(head -1 "$PGDATA/postmaster.pid")
mkdir -p "$WORK/lib"
unzip -q -j -o "$JAR" 'BOOT-INF/lib/kafka-clients-*' 'BOOT-INF/lib/slf4j-api-*' -d "$WORK/lib"

# pending DB: jobs not yet finished plus outbox events not yet published (the outbox holds only those; a published
# event is moved to outbox_published).
pending() {
    sql "$1" "SELECT (SELECT count(*) FROM import_job WHERE state IN ('RECEIVED','VALIDATING','PROCESSING'))
                   + (SELECT count(*) FROM outbox)"
}
drain() {
    local i
    for i in $(seq 1 1200); do [ "$(pending "$1")" = 0 ] && return 0; sleep 0.25; done
    log "the pipeline did not drain within 300 s"
}

# parallel_wrk SETUP MODE PREFIX_OF SECONDS SET: one wrk per instance; prints one RESULT line per instance.
# PREFIX_OF names the content: "self" (the instance's own), "next" (the next instance's, for duplicates).
parallel_wrk() {
    local n=$1 mode=$2 of=$3 secs=$4 set=$5 i src c=$((CONNECTIONS / $1)) files=()
    [ $((CONNECTIONS % n)) = 0 ] || c=$((c + 1))
    for i in $(seq 1 "$n"); do
        src=$i
        [ "$of" = next ] && src=$((i % n + 1))
        run_wrk 1 "$c" "$secs" "http://127.0.0.1:$((PORT_BASE + i))" "$mode" "$PREFIX-i$src" "$set" >"$WORK/wrk.$i" &
        files+=("$WORK/wrk.$i")
    done
    wait $(jobs -p | grep -v "^${SAMPLER:-x}$") 2>/dev/null || true
    cat "${files[@]}"
}

sum_rate() { local t=0 l; while read -r l; do t=$((t + $(rate "$l"))); done <<<"$1"; echo $t; }
sum_field() { local t=0 l; while read -r l; do t=$((t + $(field "$l" "$2"))); done <<<"$1"; echo $t; }
max_p99() { local m=0 l p; while read -r l; do p=$(field "$l" p99_us); [ "$p" -gt "$m" ] && m=$p; done <<<"$1"; awk -v p=$m 'BEGIN { printf "%.1f", p / 1000 }'; }

{
    echo "Multi-instance: $(basename "$JAR") x 1..3 on one PostgreSQL ($("$PG_BIN/postgres" --version | awk '{print $3}'), fsync on) and one Kafka broker"
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'),"\
         "setups '$SETUPS', ${SECONDS_PER_PHASE}s per phase, $CONNECTIONS connections over the instances, JAVA_OPTS '$JAVA_OPTS', load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$REPORT"

for n in $SETUPS; do
    db=bench$n
    PREFIX=s$n
    PORT_BASE=$(( $(free_port) / 10 * 10 ))
    KPORT=$(free_port)
    sql postgres "CREATE DATABASE $db"
    url="jdbc:postgresql://127.0.0.1:$PGPORT/$db"
    common=(--spring.datasource.url="$url" --spring.datasource.username=postgres --spring.datasource.password=unused
            --ingestor.raw-dir="$WORK/s$n/raw")
    PIDS=("$(start_jar "bench-1" $((PORT_BASE + 1)) "$WORK/s$n/i1" "${common[@]}" --ingestor.embedded.kafka.port="$KPORT")")
    wait_up $((PORT_BASE + 1)) "${PIDS[0]}"
    for i in $(seq 2 "$n"); do
        PIDS+=("$(start_jar "bench-$i" $((PORT_BASE + i)) "$WORK/s$n/i$i" "${common[@]}" \
            --ingestor.kafka.bootstrap-servers="127.0.0.1:$KPORT")")
    done
    for i in $(seq 2 "$n"); do wait_up $((PORT_BASE + i)) "${PIDS[$((i - 1))]}"; done
    log "setup $n: $n instance(s) up; warming up"
    PREFIX=w$n
    warm_new=$(parallel_wrk "$n" new self "$WARMUP_SECONDS" 0)
    drain "$db"
    warm_set=$(echo "$warm_new" | while read -r l; do field "$l" requests; done | sort -n | head -1)
    warm_set=$((warm_set * 9 / 10))
    [ "$warm_set" -gt 200 ] && warm_set=200
    warm_dup=$(parallel_wrk "$n" dup next "$WARMUP_SECONDS" "$warm_set")
    PREFIX=s$n

    log "setup $n: measuring"
    dl0=$(sql "$db" "SELECT deadlocks FROM pg_stat_database WHERE datname = '$db'")
    pg0=$(tree_cpu_ticks "$POSTMASTER"); read -r mb0 mt0 < <(machine_ticks)
    (while true; do
        sql "$db" "SELECT (SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'),
                          (SELECT count(*) FROM pg_locks WHERE NOT granted)" 2>/dev/null | tr '|' ' '
        sleep 0.2
     done >"$WORK/locks.$n") &
    SAMPLER=$!
    t0=$(date +%s.%N)
    new=$(parallel_wrk "$n" new self "$SECONDS_PER_PHASE" 0)
    drain "$db"
    t1=$(date +%s.%N)
    pg1=$(tree_cpu_ticks "$POSTMASTER"); read -r mb1 mt1 < <(machine_ticks)
    set_size=$DUP_SET
    min_new=$(echo "$new" | while read -r l; do field "$l" requests; done | sort -n | head -1)
    [ $((min_new * 9 / 10)) -lt "$set_size" ] && set_size=$((min_new * 9 / 10))
    dup=$(parallel_wrk "$n" dup next "$SECONDS_PER_PHASE" "$set_size")
    drain "$db"
    pg2=$(tree_cpu_ticks "$POSTMASTER"); read -r mb2 mt2 < <(machine_ticks)
    # the duplicates' counts reach import_job.duplicate_count in batches, every second (DuplicatePushCounts)
    sleep 2
    kill "$SAMPLER" 2>/dev/null || true; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=
    dl1=$(sql "$db" "SELECT deadlocks FROM pg_stat_database WHERE datname = '$db'")

    sent_new=$(( $(sum_field "$warm_new" requests) + $(sum_field "$new" requests) ))
    sent_dup=$(( $(sum_field "$warm_dup" requests) + $(sum_field "$dup" requests) ))
    made_new=$(( $(sum_field "$warm_new" sent) + $(sum_field "$new" sent) ))
    made_dup=$(( $(sum_field "$warm_dup" sent) + $(sum_field "$dup" sent) ))
    non2xx=$(( $(sum_field "$warm_new" non2xx) + $(sum_field "$new" non2xx) + $(sum_field "$warm_dup" non2xx) + $(sum_field "$dup" non2xx) ))
    IFS='|' read -r jobs keys completed failed dupcount takeovers over1 maxatt <<<"$(sql "$db" "
        SELECT count(*), count(DISTINCT key), count(*) FILTER (WHERE state = 'COMPLETED'),
               count(*) FILTER (WHERE state = 'FAILED'), coalesce(sum(duplicate_count), 0), coalesce(sum(takeovers), 0),
               count(*) FILTER (WHERE attempts > 2), coalesce(max(attempts), 0) FROM import_job")"
    IFS='|' read -r items versions outbox unpublished deadletters <<<"$(sql "$db" "
        SELECT (SELECT count(*) FROM item), (SELECT count(*) FROM item_version),
               (SELECT count(*) FROM outbox) + (SELECT count(*) FROM outbox_published),
               (SELECT count(*) FROM outbox), (SELECT count(*) FROM dead_letter)")"
    kafka=$(java -cp "$WORK/lib/*" "$BENCH_DIR/KafkaEndOffsets.java" "127.0.0.1:$KPORT" ingestor.items 2>/dev/null || echo '?')
    lock_samples=$(wc -l <"$WORK/locks.$n")
    read -r lock_busy lock_max ungranted_max <<<"$(awk '$1 > 0 { b++ } $1 > m { m = $1 } $2 > u { u = $2 } END { printf "%d %d %d", b, m, u }' "$WORK/locks.$n")"
    new_rate=$(sum_rate "$new"); dup_rate=$(sum_rate "$dup")
    measured_new=$(sum_field "$new" requests)
    e2e=$(awk -v r="$measured_new" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", r / (b - a) }')
    {
        echo
        echo "setup: $n instance(s) (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        echo "  new pushes:      $new_rate req/s (all instances), worst instance's p99 $(max_p99 "$new") ms;"\
             "finished end to end (jobs completed, events published) $e2e jobs/s"
        echo "  duplicates:      $dup_rate req/s, worst p99 $(max_p99 "$dup") ms (each instance re-sends $set_size bodies another took in)"
        echo "  per instance:    new $(echo "$new" | while read -r l; do printf '%s ' "$(rate "$l")"; done)req/s;"\
             "duplicates $(echo "$dup" | while read -r l; do printf '%s ' "$(rate "$l")"; done)req/s"
        echo "  PostgreSQL CPU:  new + pipeline $(ticks_to_s $((pg1 - pg0))) s over $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"\
             "($(awk -v t=$((pg1 - pg0)) -v hz="$CLK_TCK" -v j="$measured_new" 'BEGIN { printf "%.0f", t / hz * 1e6 / j }') CPU-µs per job);"\
             "duplicates $(ticks_to_s $((pg2 - pg1))) s; machine busy $(awk -v b=$((mb1 - mb0)) -v t=$((mt1 - mt0)) 'BEGIN { printf "%.2f", b / t }')"\
             "and $(awk -v b=$((mb2 - mb1)) -v t=$((mt2 - mt1)) 'BEGIN { printf "%.2f", b / t }')"
        echo "  lock waits:      $lock_busy of $lock_samples samples (every 0.2 s) saw a backend waiting on a lock; at most $lock_max at once,"\
             "at most $ungranted_max ungranted pg_locks"
        echo "  deadlocks:       $((dl1 - dl0))"
        echo "  repeated work:   answered $sent_new new (sent $made_new), $sent_dup duplicate pushes (sent $made_dup), warm-up included, $non2xx non-2xx;"\
             "jobs $jobs ($keys distinct contents, $completed completed, $failed failed), duplicate_count sum $dupcount;"\
             "items $items, item versions $versions, outbox rows $outbox ($unpublished unpublished), Kafka events $kafka;"\
             "takeovers $takeovers, jobs with more than two attempts (one a stage) $over1 (max attempts $maxatt), dead letters $deadletters"
        ok=yes
        # wrk counts the answers it read; requests still in flight when a phase ends were sent and taken in
        # without being counted: answered <= jobs (or duplicate counts) <= sent
        [ "$jobs" -ge "$sent_new" ] && [ "$jobs" -le "$made_new" ] && [ "$keys" = "$jobs" ] \
            && [ "$completed" = "$jobs" ] && [ "$dupcount" -ge "$sent_dup" ] && [ "$dupcount" -le "$made_dup" ] \
            && [ "$items" = "$jobs" ] && [ "$versions" = "$jobs" ] && [ "$outbox" = "$jobs" ] && [ "$kafka" = "$jobs" ] \
            && [ "$takeovers" = 0 ] && [ "$over1" = 0 ] && [ "$((dl1 - dl0))" = 0 ] && [ "$non2xx" = 0 ] || ok=NO
        echo "  every count as expected (answered <= jobs <= sent new pushes, the same for duplicate counts; one job, item, version, outbox row and Kafka event per new content; no takeover, deadlock or non-2xx): $ok"
    } | tee -a "$REPORT"
    stop_order=()
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_order+=("${PIDS[$i]}"); done
    stop_pids "${stop_order[@]}"
    PIDS=()
done
