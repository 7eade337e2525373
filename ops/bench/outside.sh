#!/usr/bin/env bash
# What a partner's client sees: wrk against the packaged jar on embedded defaults (PostgreSQL and Kafka
# embedded, the pipeline on), each rate as a ratio to GET /actuator/info with the admin key in the same run.
# One key's limits (ingestor.http.limits.requests-per-second, 5,000, and burst) are lifted, as the in-JVM
# benchmarks lift them: the trivial endpoint answers one key faster than that, and its 429s would be the rate.
# Rates count 2xx answers only; a phase with others says so. Beside the rates, each path's CPU per answer once the
# JIT is done (this JVM without its compiler threads, plus the embedded PostgreSQL) and the ratios of those: the
# JIT still compiles in the measured phases, more in some runs than in others, and moves the rates' ratios with it.
# Each run starts the jar afresh, warms every path up, then measures; the report gives every run and the
# min/median/max of each ratio. Report: target/benchmarks/outside.txt. docs/benchmarks.md has the figures.
#
#   ops/bench/outside.sh                          # 3 runs of about 5 minutes each
#   RUNS=5 WARMUP_ROUNDS=6 DUP_SET=200 GC_LOG=1 ops/bench/outside.sh
#
# Knobs (environment): RUNS (3), WARMUP_ROUNDS (at least 3: info, new, duplicates, WARMUP_SECONDS (5) each; more,
# up to WARMUP_MAX_ROUNDS (8), until one in which the JIT compiled for less than WARMUP_JIT_SHARE (25) per cent),
# SECONDS_PER_PHASE (15), THREADS (2), CONNECTIONS (32), DUP_SET (1000 distinct bodies re-sent in turn),
# PAIRS (3: after the measured phases, alternating trivial and duplicate phases of PAIR_SECONDS (5) in the same
# JVM, each pair's ratio: what moves within one warm JVM), JAVA_OPTS (for the jar, e.g. -Xmx512m), GC_LOG (1: -Xlog:gc into each run's folder), KEEP (1: keep the folders).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need wrk java curl jstat /usr/bin/time

RUNS=${RUNS:-3}
WARMUP_ROUNDS=${WARMUP_ROUNDS:-3}
WARMUP_SECONDS=${WARMUP_SECONDS:-5}
WARMUP_MAX_ROUNDS=${WARMUP_MAX_ROUNDS:-8}
WARMUP_JIT_SHARE=${WARMUP_JIT_SHARE:-25}
SECONDS_PER_PHASE=${SECONDS_PER_PHASE:-15}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
DUP_SET=${DUP_SET:-1000}
PAIR_SECONDS=${PAIR_SECONDS:-5}
WORK=$(mktemp -d /tmp/ingestor-outside.XXXXXX)
mkdir -p "$REPORT_DIR"
REPORT=$REPORT_DIR/outside.txt
PID=

cleanup() {
    [ -n "$PID" ] && stop_pids "$PID"
    [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT

# pending PORT: jobs not yet finished plus outbox events not yet published (the app's own gauges).
pending() {
    curl -sf -H 'X-Api-Key: admin-demo-key' "http://127.0.0.1:$1/actuator/prometheus" | awk '
        /^ingestor_jobs\{/ && /state="(RECEIVED|VALIDATING|PROCESSING)"/ { n += $NF }
        /^ingestor_outbox_pending\{/ { n += $NF }
        END { printf "%d", n }'
}

# drain PORT: waits (up to 300 s) until the pipeline has finished what the phases before left.
drain() {
    local i zero=0
    for i in $(seq 1 300); do
        if [ "$(pending "$1")" = 0 ]; then zero=$((zero + 1)); [ $zero -ge 2 ] && return 0; else zero=0; fi
        sleep 1
    done
    log "the pipeline did not drain within 300 s"
}

# gc PID: young and full collections so far and their seconds (jstat), as "count seconds".
gc() { jstat -gc "$1" | awk 'NR == 2 { printf "%d %.3f", $(NF-4) + $(NF-2) + $(NF-6), $NF }'; }

# jit PID: seconds the JIT's compiler threads have spent compiling so far (jstat -compiler).
jit() { jstat -compiler "$1" | awk 'NR == 2 { print $4 }'; }

# jit_cpu_ticks PID: CPU ticks of the JVM's compiler threads (C1 and C2) so far, from /proc. Only of the threads
# alive: where HotSpot stops compiler threads it no longer needs (more cores than here), their ticks are left out.
jit_cpu_ticks() {
    local stat line rest n=0
    for stat in /proc/"$1"/task/*/stat; do
        read -r line <"$stat" 2>/dev/null || continue
        case "$line" in
            *"(C1 CompilerThre"* | *"(C2 CompilerThre"*)
                rest=${line##*) }
                # utime and stime: fields 14 and 15 of the line, 12 and 13 after the command's name
                n=$((n + $(echo "$rest" | awk '{ print $12 + $13 }')))
                ;;
        esac
    done
    echo "$n"
}

# pg_cpu_ticks: CPU ticks of the instance's embedded PostgreSQL (its server, its live backends and those gone);
# 0 when there is none (an external database is measured on its own machine).
pg_cpu_ticks() { if [ -n "${PG_PID:-}" ]; then tree_cpu_ticks "$PG_PID"; else echo 0; fi; }

# phase PORT MODE PREFIX SECONDS [DUP_SET]: one wrk phase; prints its RESULT line plus jvm_cpu_s, busy, gcs, gc_s,
# jit_s (the compiler's time, jstat), jit_cpu_s (its threads' CPU) and pg_cpu_s.
phase() {
    local before_cpu gc_before jit_before jit_cpu_before pg_before result
    before_cpu=$(proc_cpu_ticks "$PID")
    jit_cpu_before=$(jit_cpu_ticks "$PID")
    pg_before=$(pg_cpu_ticks)
    read -r mb mt < <(machine_ticks)
    gc_before=$(gc "$PID")
    jit_before=$(jit "$PID")
    result=$(run_wrk "$THREADS" "$CONNECTIONS" "$4" "http://127.0.0.1:$1" "$2" "$3" "${5:-1000}")
    read -r ab at < <(machine_ticks)
    read -r gcn gcs <<<"$(gc "$PID")"
    read -r gbn gbs <<<"$gc_before"
    echo "$result jvm_cpu_s=$(ticks_to_s $(( $(proc_cpu_ticks "$PID") - before_cpu ))) busy=$(awk -v b=$((ab - mb)) -v t=$((at - mt)) 'BEGIN { printf "%.2f", b / t }') gcs=$((gcn - gbn)) gc_s=$(awk -v a="$gcs" -v b="$gbs" 'BEGIN { printf "%.3f", a - b }') jit_s=$(awk -v a="$(jit "$PID")" -v b="$jit_before" 'BEGIN { printf "%.1f", a - b }') jit_cpu_s=$(ticks_to_s $(( $(jit_cpu_ticks "$PID") - jit_cpu_before ))) pg_cpu_s=$(ticks_to_s $(( $(pg_cpu_ticks) - pg_before )))"
}

# work_ms LINE: CPU milliseconds per 2xx answer of a phase, this JVM without its compiler threads plus PostgreSQL:
# the work a request costs once the JIT is done, which the JIT's share of a phase (it swings between runs) leaves out.
work_ms() {
    awk -v r="$(field "$1" requests)" -v n="$(field "$1" non2xx)" -v j="$(field "$1" jvm_cpu_s)" \
        -v c="$(field "$1" jit_cpu_s)" -v p="$(field "$1" pg_cpu_s)" 'BEGIN { printf "%.3f", 1000 * (j - c + p) / (r - n) }'
}

# work_ratio A B: (CPU per answer of B) / (the same of A): the rate of A as a fraction of B's, both bound by CPU.
work_ratio() { awk -v a="$(work_ms "$1")" -v b="$(work_ms "$2")" 'BEGIN { printf "%.3f", b / a }'; }

# per_cpu_ratio A B: (2xx answers per JVM CPU-second of A) / (the same of B).
per_cpu_ratio() {
    awk -v ra="$(rate "$1")" -v ca="$(field "$1" jvm_cpu_s)" -v rb="$(rate "$2")" \
        -v cb="$(field "$2" jvm_cpu_s)" 'BEGIN { printf "%.2f", (ra / ca) / (rb / cb) }'
}

describe() { echo "$(rate "$1") req/s of 2xx, p99 $(p99_ms "$1") ms, non-2xx $(field "$1" non2xx), JVM CPU $(field "$1" jvm_cpu_s) s (JIT threads $(field "$1" jit_cpu_s) s), PostgreSQL CPU $(field "$1" pg_cpu_s) s, wrk CPU $(field "$1" wrk_cpu_s) s, machine busy $(field "$1" busy), GCs $(field "$1" gcs) ($(field "$1" gc_s) s), JIT $(field "$1" jit_s) s"; }

{
    # the jar's own build time: the repository's HEAD names the jar only when the jar was built from it
    echo "Outside client: wrk -t$THREADS -c$CONNECTIONS against $JAR (built $(date -u -r "$JAR" '+%Y-%m-%d %H:%M UTC'))"\
         "on embedded defaults, pipeline on"
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, repository at $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'),"\
         "runs $RUNS, warm-up rounds $WARMUP_ROUNDS-$WARMUP_MAX_ROUNDS x ${WARMUP_SECONDS}s per path (until the JIT < $WARMUP_JIT_SHARE%), ${SECONDS_PER_PHASE}s per phase,"\
         "duplicate set $DUP_SET, JAVA_OPTS '${JAVA_OPTS:-}', load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$REPORT"

NEW_RATIOS=() DUP_RATIOS=() NEW_WORK=() DUP_WORK=() REFUSING=0
for run in $(seq 1 "$RUNS"); do
    dir=$WORK/run$run
    port=$(free_port)
    gc_opts=
    [ "${GC_LOG:-0}" = 1 ] && gc_opts="-Xlog:gc:file=$dir/gc.log:uptime"
    mkdir -p "$dir"
    PID=$(JAVA_OPTS="${JAVA_OPTS:-} $gc_opts" start_jar "outside-$run" "$port" "$dir" \
        --ingestor.embedded.kafka.port="$(free_port)" \
        --ingestor.http.limits.requests-per-second=1000000 --ingestor.http.limits.burst=2000000)
    wait_up "$port" "$PID"
    # the embedded PostgreSQL's server: the first line of its postmaster.pid
    PG_PID=$(head -1 "$dir/data/postgres/postmaster.pid" 2>/dev/null || true)
    log "run $run: up on $port (pid $PID, its PostgreSQL ${PG_PID:-not found}); warming up"
    # rounds until one in which the JIT compiled for less than WARMUP_JIT_SHARE of its wall time (at least
    # WARMUP_ROUNDS, at most WARMUP_MAX_ROUNDS): a phase measured while the compiler still works is slower by it
    shares=
    for w in $(seq 1 "$WARMUP_MAX_ROUNDS"); do
        round_start=$(date +%s.%N) round_jit=$(jit "$PID")
        phase "$port" info - "$WARMUP_SECONDS" >/dev/null
        warm_new=$(phase "$port" new "w$w" "$WARMUP_SECONDS")
        drain "$port"
        set_size=$(( $(field "$warm_new" requests) * 9 / 10 / THREADS ))
        [ "$set_size" -gt "$DUP_SET" ] && set_size=$DUP_SET
        phase "$port" dup "w$w" "$WARMUP_SECONDS" "$set_size" >/dev/null
        share=$(awk -v j0="$round_jit" -v j1="$(jit "$PID")" -v t0="$round_start" -v t1="$(date +%s.%N)" \
            'BEGIN { printf "%.0f", 100 * (j1 - j0) / (t1 - t0) }')
        shares+="${shares:+, }$share%"
        [ "$w" -ge "$WARMUP_ROUNDS" ] && [ "$share" -lt "$WARMUP_JIT_SHARE" ] && break
    done
    log "run $run: measuring"
    info=$(phase "$port" info - "$SECONDS_PER_PHASE")
    new=$(phase "$port" new m "$SECONDS_PER_PHASE")
    drain "$port"
    set_size=$(( $(field "$new" requests) * 9 / 10 / THREADS ))
    [ "$set_size" -gt "$DUP_SET" ] && set_size=$DUP_SET
    dup=$(phase "$port" dup m "$SECONDS_PER_PHASE" "$set_size")
    drain "$port"
    pairs=
    for pr in $(seq 1 "${PAIRS:-3}"); do
        pi=$(phase "$port" info - "$PAIR_SECONDS")
        pd=$(phase "$port" dup m "$PAIR_SECONDS" "$set_size")
        pairs+=" $(awk -v a="$(rate "$pd")" -v b="$(rate "$pi")" 'BEGIN { printf "%.2f", a / b }')x"
        pairs+="/$(per_cpu_ratio "$pd" "$pi")x"
    done
    new_ratio=$(awk -v a="$(rate "$new")" -v b="$(rate "$info")" 'BEGIN { printf "%.3f", a / b }')
    dup_ratio=$(awk -v a="$(rate "$dup")" -v b="$(rate "$info")" 'BEGIN { printf "%.3f", a / b }')
    new_work=$(work_ratio "$new" "$info") dup_work=$(work_ratio "$dup" "$info")
    NEW_RATIOS+=("$new_ratio") DUP_RATIOS+=("$dup_ratio") NEW_WORK+=("$new_work") DUP_WORK+=("$dup_work")
    for p in "$info" "$new" "$dup"; do [ "$(field "$p" non2xx)" = 0 ] || REFUSING=$((REFUSING + 1)); done
    {
        echo "run $run (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        echo "  warm-up: $w rounds, the JIT compiling for $shares of each round's wall time"
        echo "  trivial (GET /actuator/info): $(describe "$info")"
        echo "  new pushes:                   $(describe "$new"); ratio ${new_ratio}x"
        echo "  duplicates ($set_size bodies):     $(describe "$dup"); ratio ${dup_ratio}x"
        echo "  per JVM CPU-second: new $(per_cpu_ratio "$new" "$info")x, duplicates $(per_cpu_ratio "$dup" "$info")x"
        echo "  CPU per answer without the JIT (this JVM + PostgreSQL): trivial $(work_ms "$info") ms, new $(work_ms "$new") ms,"\
             "duplicates $(work_ms "$dup") ms; as ratios: new ${new_work}x, duplicates ${dup_work}x"
        echo "  then ${PAIRS:-3} pairs of ${PAIR_SECONDS}s (trivial, duplicates), ratio/per-CPU-second ratio:$pairs"
    } | tee -a "$REPORT"
    stop_pids "$PID"
    PID=
done

spread() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "min %.2fx, median %.2fx, max %.2fx", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR] }'; }
{
    echo "over $RUNS runs: new pushes $(spread "${NEW_RATIOS[@]}"); duplicates $(spread "${DUP_RATIOS[@]}")"
    echo "  by CPU per answer without the JIT: new pushes $(spread "${NEW_WORK[@]}"); duplicates $(spread "${DUP_WORK[@]}")"
    [ "$REFUSING" = 0 ] || echo "WARNING: $REFUSING measured phases had answers other than 2xx (counted out of the rates)"
    if [ -f "$REPORT_DIR/http.txt" ]; then
        echo "the in-JVM benchmark's last report (target/benchmarks/http.txt), for comparison:"
        grep -E '^ratios to the trivial endpoint' "$REPORT_DIR/http.txt" | sed 's/^/  /' || true
    fi
} | tee -a "$REPORT"
