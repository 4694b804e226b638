#!/usr/bin/env bash
# Runs numlab's Slurm path for real against a single-node Slurm on localhost:
# installs slurm-wlm and munge (as root), starts munged, slurmctld and slurmd
# with a one-node configuration, submits a 4-point sweep as a job array with
# `numlab sweep --slurm --submit`, and waits until `numlab sweep status` sees
# every point finish. Not part of ctest: it needs root and starts daemons.
#
#   scripts/test-slurm.sh [BUILD_DIR]     (default: build)
#
# Exit 0 when every point finished; the daemons are stopped on exit.
set -euo pipefail
build=$(realpath "${1:-build}")
numlab="$build/numlab"
[ -x "$numlab" ] || { echo "test-slurm: $numlab is missing; build the numlab target first" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "test-slurm: run as root (it installs and starts Slurm)" >&2; exit 2; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends slurm-wlm munge
fi

work=$(mktemp -d /tmp/numlab-slurm-XXXXXX)
pids=()
cleanup() {
  local status=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  # The daemons are not our children (they detach): wait for them to exit, as
  # slurmctld saves its state into the spool folder while it stops, and an
  # rm racing with it fails (and made a passing run exit 1).
  for _ in $(seq 100); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# munge: a key and a daemon of our own, so nothing system-wide changes.
mkdir -p "$work/munge" && chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munge_socket="$work/munge/munge.socket"
munged --force --key-file="$work/munge/munge.key" --socket="$munge_socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed"
pids+=("$(cat "$work/munge/munged.pid")")

host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024) - 512 }' /proc/meminfo)
mkdir -p "$work/spool/ctld" "$work/spool/d" "$work/log"
cat > "$work/slurm.conf" <<CONF
ClusterName=numlab-test
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CryptoType=crypto/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/spool/ctld
SlurmdSpoolDir=$work/spool/d
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF"
sleep 1
pids+=("$(cat "$work/slurmctld.pid")")
slurmd -f "$SLURM_CONF"
sleep 1
pids+=("$(cat "$work/slurmd.pid")")
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 1
done
sinfo

cat > "$work/grid.yml" <<SPEC
name: slurm-test
set: {dataset: synthetic, model: mlp, hidden: 16, train_limit: 256, test_limit: 64,
      batch_size: 16, epochs: 2, threads: 1, trace.every: 8}
grid:
  precision: [fp16-mixed, bf16]
  seed: 1..2
slurm: {time: "00:05:00", mem: 256M, cpus_per_task: 1, max_parallel: 2}
SPEC
"$numlab" sweep "$work/grid.yml" --dir "$work/sweep" --slurm --submit
cat "$work/sweep/sweep.sbatch"
for _ in $(seq 300); do
  if "$numlab" sweep status "$work/sweep" > "$work/status.txt"; then
    cat "$work/status.txt"
    squeue || true
    echo "test-slurm: every point finished through the Slurm job array"
    exit 0
  fi
  sleep 1
done
cat "$work/status.txt"
squeue || true
cat "$work/log/slurmctld.log" "$work/log/slurmd.log" "$work"/sweep/logs/slurm-*.out 2>/dev/null | tail -40
echo "test-slurm: the points did not all finish within 5 minutes" >&2
exit 1
