# Shared by ops/bench/*.sh: starting the packaged jar, running wrk, reading CPU times, a scratch PostgreSQL cluster.
# Sourced, not run.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/../.." && pwd)
JAR=${JAR:-$REPO_DIR/target/ingestor.jar}
REPORT_DIR=${REPORT_DIR:-$REPO_DIR/target/benchmarks}
CLK_TCK=$(getconf CLK_TCK)

need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "needs $tool on the PATH (Debian: apt-get install -y $tool)" >&2; exit 2; }
    done
    [ -f "$JAR" ] || { echo "no $JAR: build it first with ./mvnw -B -o -q package -DskipTests" >&2; exit 2; }
}

log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# start_jar NAME PORT DIR [ARGS...]: starts the jar in the background (its log in DIR/app.log), prints its pid.
# JAVA_OPTS applies to every start.
start_jar() {
    local name=$1 port=$2 dir=$3
    shift 3
    mkdir -p "$dir"
    (cd "$dir" && exec java ${JAVA_OPTS:-} -jar "$JAR" --server.port="$port" --ingestor.instance-id="$name" \
        --ingestor.data-dir="$dir/data" --ingestor.inbox-dir="$dir/inbox" \
        --logging.level.dev.ingestor.intake=WARN --logging.level.dev.ingestor.validation=WARN \
        --logging.level.dev.ingestor.processing=WARN "$@" >"$dir/app.log" 2>&1) &
    echo $!
}

# wait_up PORT PID: waits (up to 240 s) until the instance answers its health UP; fails if it died.
wait_up() {
    local port=$1 pid=$2 i
    for i in $(seq 1 480); do
        kill -0 "$pid" 2>/dev/null || { log "the instance on port $port stopped while starting"; return 1; }
        curl -sf "http://127.0.0.1:$port/actuator/health" 2>/dev/null | grep -q '"UP"' && return 0
        sleep 0.5
    done
    log "the instance on port $port did not answer UP within 240 s"
    return 1
}

# stop_pids PID...: an orderly stop (SIGTERM), waited for up to 60 s each.
stop_pids() {
    local pid i
    for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        for i in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null || true
    done
}

# run_wrk THREADS CONNECTIONS SECONDS URL MODE PREFIX [DUP_SET]: prints wrk's RESULT line (key=value pairs) with
# wrk's own CPU seconds (GNU time, /usr/bin/time: Debian's package time).
run_wrk() {
    local out cpu
    out=$(/usr/bin/time -f 'WRKCPU %U %S' wrk -t"$1" -c"$2" -d"$3"s --latency -s "$BENCH_DIR/push.lua" "$4" -- "$5" "$6" \
        "${7:-1000}" 2>&1)
    cpu=$(echo "$out" | awk '/^WRKCPU/ { printf "%.1f", $2 + $3 }')
    echo "$out" | grep '^RESULT' | sed "s/^RESULT //; s/\$/ wrk_cpu_s=${cpu:-0}/" || { echo "$out" >&2; return 1; }
}

# field LINE KEY: the value of KEY in a "key=value ..." line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# rate LINE: answers of 2xx per second of a RESULT line; a refusal (a 429 of the key's limits, say) is cheaper than
# the work it refuses and would raise a rate it does not belong to.
rate() {
    awk -v r="$(field "$1" requests)" -v n="$(field "$1" non2xx)" -v d="$(field "$1" duration_us)" \
        'BEGIN { printf "%.0f", (r - n) / (d / 1e6) }'
}

# p99_ms LINE
p99_ms() { awk -v p="$(field "$1" p99_us)" 'BEGIN { printf "%.1f", p / 1000 }'; }

# proc_cpu_ticks PID: user+system CPU ticks of a process, its threads and its waited-for children.
proc_cpu_ticks() {
    awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# tree_cpu_ticks PID: the process's ticks plus those of its live children (PostgreSQL's backends).
tree_cpu_ticks() {
    local total child
    total=$(proc_cpu_ticks "$1")
    for child in $(pgrep -P "$1"); do total=$((total + $(proc_cpu_ticks "$child"))); done
    echo "$total"
}

ticks_to_s() { awk -v t="$1" -v hz="$CLK_TCK" 'BEGIN { printf "%.1f", t / hz }'; }

# machine_ticks: busy and total CPU ticks of the whole machine (from /proc/stat).
machine_ticks() { awk '/^cpu / { idle = $5 + $6; total = 0; for (i = 2; i <= 9; i++) total += $i; print total - idle, total }' /proc/stat; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
        || echo $((20000 + RANDOM % 20000))
}

# A PostgreSQL cluster of its own for a script, from the machine's server binaries: PG_BIN, default the newest
# /usr/lib/postgresql/*/bin (Debian: apt-get install -y postgresql). Run as root, the cluster runs as the user
# postgres; fsync and synchronous commits on, as in the embedded default.
need_pg_bin() {
    PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
    [ -x "$PG_BIN/initdb" ] || { echo "no PostgreSQL server binaries (PG_BIN); Debian: apt-get install -y postgresql" >&2; exit 2; }
}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# start_scratch_pg DIR [SERVER OPTIONS]: initdb in DIR/pg and start it on a free port of 127.0.0.1 (its socket in
# DIR/pg too); sets PGPORT and PGDATA. stop_scratch_pg stops it.
start_scratch_pg() {
    PGPORT=$(free_port)
    PGDATA=$1/pg
    mkdir -p "$PGDATA" && [ "$(id -u)" = 0 ] && chown postgres "$PGDATA"
    as_pg "$PG_BIN/initdb" -D "$PGDATA" -U postgres -A trust >"$1/initdb.log"
    as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -o \
        "-p $PGPORT -c listen_addresses=127.0.0.1 -k $PGDATA ${2:-}" start >/dev/null
}
stop_scratch_pg() { [ -n "${PGDATA:-}" ] && as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast stop >/dev/null 2>&1 || true; }
