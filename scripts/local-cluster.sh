#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying `kjudge batch --slurm` and for its tests:
# munged, slurmctld and slurmd on localhost (partition "cpu", plus GPUs as a Gres where nvidia-smi
# sees any), and a PostgreSQL server on a local socket (scripts/local-postgres.sh) for KJUDGE_DB.
#
#   scripts/local-cluster.sh start  [DIR]   start everything; prints the lines to eval
#   scripts/local-cluster.sh status [DIR]   what runs, and the node's state
#   scripts/local-cluster.sh stop   [DIR]   stop exactly what `start` started, remove DIR's scratch
#
# DIR defaults to /tmp/kjudge-cluster. Everything lives under DIR: the munge key, slurm.conf, the
# daemons' pid, log, state and spool files. Nothing is installed here: a missing program is named
# with its Debian package (scripts/install-deps.sh installs them all). The daemons run as the
# calling user (root in CI containers: SlurmUser=root).
#
# Environment: KJ_SLURM_PORT (slurmctld's port, default 6817; slurmd uses the next one), so that
# two clusters (a user's and the tests') can run side by side; KJ_CLUSTER_NO_DB=1 skips PostgreSQL.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cmd="${1:-}"
dir="${2:-/tmp/kjudge-cluster}"
port="${KJ_SLURM_PORT:-6817}"

die() { echo "local-cluster: $*" >&2; exit 1; }

# Programs and the Debian package each comes from.
need_programs() {
  local missing=() p
  for p in munged:munge munge:munge slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client \
           sinfo:slurm-client scontrol:slurm-client; do
    command -v "${p%%:*}" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "${p%%:*}" \
      >/dev/null 2>&1 || missing+=("${p#*:}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    die "missing: ${missing[*]}; install with: apt-get install -y slurm-wlm munge" \
        "(or scripts/install-deps.sh)"
  fi
}

# The pid in DIR/run/NAME.pid when that process is alive, else nothing.
pid_of() {
  local f="$dir/run/$1.pid" pid
  [ -f "$f" ] || return 0
  pid="$(cat "$f" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
  return 0
}

write_munge_key() {
  mkdir -p "$dir/munge" && chmod 700 "$dir/munge"
  [ -f "$dir/munge/munge.key" ] && return 0
  # 1024 random bytes: munge's own mungekey writes the same size.
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
}

# slurm.conf for this host with its real CPUs and memory (slurmd -C measures them).
write_slurm_conf() {
  local host node gres_line="" gres_node="" ngpu=0 user
  host="$(hostname -s)"
  user="$(id -un)"
  node="$(PATH="$PATH:/usr/sbin" slurmd -C | head -1)"
  node="${node#NodeName=* }"   # CPUs=.. Boards=.. ... RealMemory=..
  local cpus mem mem_per_cpu
  cpus="$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node")"
  mem="$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")"
  mem_per_cpu=$((mem / cpus))   # MB
  if command -v nvidia-smi >/dev/null 2>&1; then
    ngpu="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)"
  fi
  if [ "${ngpu:-0}" -gt 0 ]; then
    gres_line="GresTypes=gpu"
    gres_node="Gres=gpu:$ngpu"
    : >"$dir/gres.conf"
    local i
    for ((i = 0; i < ngpu; i++)); do
      echo "NodeName=$host Name=gpu File=/dev/nvidia$i" >>"$dir/gres.conf"
    done
  fi
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/local-cluster.sh: a one-node cluster on $host.
ClusterName=kjudge-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
# cred_expire (s) is also how long a requeued job waits before it may start again (default 120).
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups in a container: processes are tracked by parent and process group.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Without it a job would be given the whole node's memory and jobs would run one at a time.
DefMemPerCPU=$mem_per_cpu
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# A requeued job may run again (scontrol requeue, node failure, preemption).
JobRequeue=1
# Seconds between SIGTERM and SIGKILL when a job is cancelled or reaches its time limit.
KillWait=30
# Seconds a node may be silent before it is marked down; short for a local cluster.
SlurmdTimeout=60
MinJobAge=300
$gres_line
NodeName=$host NodeAddr=127.0.0.1 $node $gres_node State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  [ -n "$gres_line" ] && echo "Gres: $ngpu GPU(s) from nvidia-smi" >&2
  return 0
}

# Waits up to $2 seconds for `cmd` ($1, a shell snippet) to succeed.
wait_for() {
  local i
  for ((i = 0; i < $2 * 5; i++)); do
    eval "$1" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

start_munge() {
  [ -n "$(pid_of munged)" ] && return 0
  write_munge_key
  # --force: the socket's directory may sit under a world-writable /tmp.
  PATH="$PATH:/usr/sbin" munged --force --key-file="$dir/munge/munge.key" \
    --socket="$dir/munge/munge.socket" --pid-file="$dir/run/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
    || die "munged did not start; see $dir/log/munged.log"
  wait_for "munge -S '$dir/munge/munge.socket' -n </dev/null | unmunge -S '$dir/munge/munge.socket'" 10 \
    || die "munge does not answer on $dir/munge/munge.socket; see $dir/log/munged.log"
}

start_slurm() {
  export SLURM_CONF="$dir/slurm.conf"
  if [ -z "$(pid_of slurmctld)" ]; then
    # -i: ignore state files of a previous run of this cluster that no longer match.
    PATH="$PATH:/usr/sbin" slurmctld -f "$SLURM_CONF" -i \
      || die "slurmctld did not start; see $dir/log/slurmctld.log"
  fi
  wait_for "scontrol ping | grep -q UP" 30 \
    || die "slurmctld does not answer; see $dir/log/slurmctld.log"
  if [ -z "$(pid_of slurmd)" ]; then
    PATH="$PATH:/usr/sbin" slurmd -f "$SLURM_CONF" -N "$(hostname -s)" \
      || die "slurmd did not start; see $dir/log/slurmd.log"
  fi
  # A node left down or drained by an earlier run is brought back.
  wait_for "sinfo -h -N -o %T | grep -Eq '^(idle|mixed|allocated)'" 60 || {
    scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true
    wait_for "sinfo -h -N -o %T | grep -Eq '^(idle|mixed|allocated)'" 30 \
      || die "the node is not idle: $(sinfo -h -N -o '%N %T %E'); see $dir/log/slurmd.log"
  }
}

start_db() {
  [ "${KJ_CLUSTER_NO_DB:-0}" = 1 ] && return 0
  [ -x "$here/local-postgres.sh" ] || die "scripts/local-postgres.sh is missing"
  # Only the URL goes to its stdout.
  "$here/local-postgres.sh" start "$dir/postgres" >"$dir/postgres.url" \
    || die "PostgreSQL did not start (scripts/local-postgres.sh start $dir/postgres)"
}

print_env() {
  echo "export SLURM_CONF=$dir/slurm.conf"
  if [ -s "$dir/postgres.url" ]; then
    echo "export KJUDGE_DB='$(cat "$dir/postgres.url")'"
  fi
}

do_start() {
  need_programs
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  [ -f "$dir/slurm.conf" ] || write_slurm_conf
  start_munge
  start_slurm
  start_db
  echo "# local cluster up in $dir: $(sinfo -h -N -o '%N %P %T cpus=%c mem=%mMB')" >&2
  print_env
}

do_status() {
  local name pid rc=0
  for name in munged slurmctld slurmd; do
    pid="$(pid_of "$name")"
    if [ -n "$pid" ]; then echo "$name: running (pid $pid)"; else echo "$name: stopped"; rc=1; fi
  done
  if [ -n "$(pid_of slurmctld)" ]; then
    SLURM_CONF="$dir/slurm.conf" sinfo -N -o '%N %P %T %c %m' || rc=1
  fi
  if [ "${KJ_CLUSTER_NO_DB:-0}" != 1 ]; then
    # The postmaster's pid is the first line of its pid file.
    pid="$(head -1 "$dir/postgres/data/postmaster.pid" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      echo "postgres: running (pid $pid) KJUDGE_DB=$(cat "$dir/postgres.url" 2>/dev/null)"
    else
      echo "postgres: stopped"; rc=1
    fi
  fi
  return $rc
}

# Sends TERM to the process in DIR/run/NAME.pid, waits for it to exit, then KILL.
stop_one() {
  local pid i
  pid="$(pid_of "$1")"
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "local-cluster: $1 (pid $pid) ignored SIGTERM for 10 s: SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

do_stop() {
  [ -d "$dir" ] || return 0
  if [ -f "$dir/slurm.conf" ] && [ -n "$(pid_of slurmctld)" ]; then
    # Jobs still queued or running end first, so that no slurmstepd outlives its slurmd.
    SLURM_CONF="$dir/slurm.conf" scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    wait_for "[ -z \"\$(SLURM_CONF='$dir/slurm.conf' squeue -h -o %i)\" ]" 40 || true
  fi
  stop_one slurmd
  stop_one slurmctld
  stop_one munged
  if [ -x "$here/local-postgres.sh" ] && [ -d "$dir/postgres" ]; then
    "$here/local-postgres.sh" stop "$dir/postgres" >/dev/null || true
  fi
  # Only what start wrote; a DIR the user chose is left in place, emptied of our files.
  rm -rf "$dir/munge" "$dir/state" "$dir/spool" "$dir/run" "$dir/postgres" \
         "$dir/slurm.conf" "$dir/gres.conf" "$dir/postgres.url"
  rm -rf "$dir/log"
  rmdir "$dir" 2>/dev/null || true
}

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
  *) echo "usage: $0 start|stop|status [DIR]" >&2; exit 2 ;;
esac
