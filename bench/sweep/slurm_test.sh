#!/usr/bin/env bash
# scripts/slurm/sweep.sbatch on a real one-node Slurm cluster (docs/SWEEP.md,
# "On a Slurm cluster"): starts munged, slurmctld and slurmd in a scratch
# directory (proctrack/linuxproc, task/none, ports of its own), submits a
# 3-shard array and its merge with scripts/slurm/submit, cancels task 2
# mid-shard, checks that the merge (afterany) ran anyway and refused shard 2
# by name, re-submits --array=2 alone (SLURM_ARRAY_TASK_COUNT=1,
# SLURM_ARRAY_TASK_MIN=MAX=2: shard 2/3, resumed), and checks that the
# merged CSV holds a single run's rows and the merge listed the rows that
# did not verify. Stops every daemon it started.
# Skipped (exit 77, one line saying why) when not root or when Slurm and
# munge are not installed (TILESCHED_SETUP_SLURM=1 scripts/setup installs them).
# usage: slurm_test.sh TILESCHED SOURCE_DIR
set -u
bin=$(realpath "$1")
source_dir=$(realpath "$2")
slurm_dir=$source_dir/scripts/slurm
skip() { echo "slurm_test: SKIPPED: $*"; exit 77; }
((EUID == 0)) || skip "needs root to start slurmd and slurmctld"
for c in munged munge slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
  command -v "$c" >/dev/null || skip "no $c (TILESCHED_SETUP_SLURM=1 scripts/setup installs Slurm and munge)"
done
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/../../cli/test_lib.sh"
chmod 711 "$work"
pids=()
jobs_started=()

stop_all() {
  ((${#jobs_started[@]} == 0)) || scancel "${jobs_started[@]}" 2>/dev/null
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap stop_all EXIT
die() { echo "FAIL: $*"; for f in "$work"/log/*; do echo "== $f"; tail -n 5 "$f"; done; exit 1; }

# until SECONDS_MAX CMD...: polls CMD every 0.2 s until it succeeds.
until_ok() {
  local limit=$1; shift
  local end=$((SECONDS + limit))
  until "$@"; do ((SECONDS < end)) || return 1; sleep 0.2; done
}

# The cluster: one node, this host, every CPU; ports from this process's id.
mkdir -p "$work"/{munge,state,spool,log,run}
chmod 711 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
node=$(hostname -s)
port=$((20000 + ($$ % 20000) * 2))
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=tilesched-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=sched_interval=2
ReturnToService=2
MinJobAge=3600
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
munged -F -f --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" \
  --log-file="$work/log/munged.log" >"$work/log/munged.out" 2>&1 &
pids+=($!)
until_ok 10 test -S "$work/munge/munge.sock" || die "munged did not start"
slurmctld -D -i >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [[ $(sinfo -h -o %T 2>/dev/null) == idle ]]; }
until_ok 30 node_idle || die "the node did not come up idle: $(sinfo 2>&1 | tail -n 2)"
echo "slurm_test: $(sinfo --version), node $node with $(nproc) CPU(s) idle"

# The sweep: 11 graph files in 3 shards: 9 random layered graphs of 160
# ops (tenths of a second each, so task 2 can be caught after its first)
# and the 2 infeasible graphs of engine/testdata, whose rows do not verify,
# so the tasks holding them exit 1 as a real sweep's may.
mkdir "$work/graphs"
for seed in 1 2 3 4 5 6 7 8 9; do
  "$bin" generate --family random_layered --ops 160 --seed $seed -o "$work/graphs/rl_$seed.loop.json" ||
    die "generate failed"
done
cp "$source_dir"/engine/testdata/infeasible/*.loop.json "$work/graphs/"
sweep="--graphs $work/graphs --generators serial,cost-based,ims"
# shellcheck disable=SC2086
"$bin" sweep $sweep --jobs 1 -q --output "$work/single.csv"
status=$?
[[ $status == 1 ]] || die "the single run exits $status (expected 1: some row does not verify)"
verified_col=$(head -n 1 "$work/single.csv" | tr , '\n' | grep -nx verified | cut -d: -f1)
unverified=$(tail -n +2 "$work/single.csv" | cut -d, -f"$verified_col" | grep -c '^0$')
echo "slurm_test: the single run: $(($(wc -l <"$work/single.csv") - 1)) rows, $unverified not verified"

# Task 2's first run stops itself after its first graph is in the journal,
# for the test to cancel it mid-shard; every other run is the CLI itself.
cat >"$work/tilesched" <<EOF
#!/usr/bin/env bash
if [[ " \$* " == *" --shard 2/3 "* && ! -e $work/run/resume ]]; then
  "$bin" "\$@" &
  sweep_pid=\$!
  until (( \$(wc -l <"$work/out/shard.2.csv.partial" 2>/dev/null || echo 0) > 1 )); do
    kill -0 \$sweep_pid 2>/dev/null || { touch $work/run/too-fast; exit 1; }
    sleep 0.02
  done
  kill -STOP \$sweep_pid
  touch $work/run/stopped
  wait \$sweep_pid
fi
exec "$bin" "\$@"
EOF
chmod +x "$work/tilesched"
export TILESCHED_BIN=$work/tilesched TILESCHED_OUT_DIR=$work/out TILESCHED_SHARDS=3
export TILESCHED_SWEEP=$sweep

# job_field ID FIELD: FIELD= of `scontrol show job ID` (every task of an array).
job_field() { scontrol -o show job "$1" | grep -o "$2=[^ ]*" | cut -d= -f2 | paste -sd' '; }
jobs_done() { [[ -z $(squeue -h -j "$1" 2>/dev/null) ]]; }

cd "$work" || exit 1
read -r jid mid < <("$slurm_dir/submit" --cpus-per-task=1) || die "submit failed"
jobs_started+=("$jid" "$mid")
echo "slurm_test: submitted array $jid (tasks 1-3) and merge $mid ($(job_field "$mid" Dependency))"
until_ok 120 test -e "$work/run/stopped" -o -e "$work/run/too-fast" || die "task 2 never stopped"
[[ -e $work/run/too-fast ]] && die "task 2 finished before it could be cancelled"
scancel "${jid}_2"
until_ok 120 jobs_done "$jid,$mid" || die "the array and the merge did not end"
journal_rows=$(($(wc -l <"$work/out/shard.2.csv.partial") - 1))
echo "slurm_test: cancelled task ${jid}_2 mid-shard: $journal_rows rows in its journal"
for k in 1 2 3; do
  echo "slurm_test: task ${jid}_$k: $(job_field "${jid}_$k" JobState), exit code $(job_field "${jid}_$k" ExitCode)"
done
[[ $(job_field "${jid}_2" JobState) == CANCELLED ]] || fail "task 2 is not CANCELLED"
# Shards 1 and 2 hold the infeasible graphs (items 9 and 10 of 0..10).
[[ $(job_field "${jid}_1" ExitCode) == 1:0 ]] || fail "task 1 did not exit 1 (rows not verified)"
[[ $(job_field "${jid}_3" ExitCode) == 0:0 ]] || fail "task 3 did not exit 0"
echo "slurm_test: merge $mid: $(job_field "$mid" JobState), exit code $(job_field "$mid" ExitCode)"
echo "  log: $(cat "$work/tilesched-merge.$mid.log")"
[[ $(job_field "$mid" ExitCode) == 2:0 ]] || fail "the merge did not refuse with exit 2"
grep -q "1 of 3 shards in $work/out not finished: shard.2.csv (its journal holds $journal_rows rows)" \
  "$work/tilesched-merge.$mid.log" || fail "the merge did not name shard 2 and its journal"
grep -q -- "--array=2$" "$work/tilesched-merge.$mid.log" || fail "the merge did not say how to re-run"
[[ ! -e $work/out/sweep.csv ]] || fail "the refused merge wrote sweep.csv"

# Task 2 alone, then the merge again.
touch "$work/run/resume"
read -r jid2 mid2 < <("$slurm_dir/submit" --array=2 --cpus-per-task=1) || die "submit failed"
jobs_started+=("$jid2" "$mid2")
until_ok 120 jobs_done "$jid2,$mid2" || die "the re-run and its merge did not end"
log2=$work/tilesched-sweep.${jid2}_2.log
echo "slurm_test: re-run $jid2: $(job_field "$jid2" JobState), exit code $(job_field "$jid2" ExitCode)"
sed 's/^/  log: /' "$log2"
grep -q "^sweep.sbatch: shard 2/3 (array $jid2 tasks 2-2, 1 in all)$" "$log2" ||
  fail "the re-run was not shard 2/3 with SLURM_ARRAY_TASK_COUNT=1, MIN=MAX=2"
grep -q "($journal_rows kept from the earlier run)" "$log2" || fail "the re-run did not resume its journal"
echo "slurm_test: merge $mid2: $(job_field "$mid2" JobState), exit code $(job_field "$mid2" ExitCode)"
sed 's/^/  log: /' "$work/tilesched-merge.$mid2.log"
[[ $(job_field "$mid2" ExitCode) == 0:0 ]] || fail "the second merge failed"
grep -q "^tilesched merge: $unverified row(s) not verified" "$work/tilesched-merge.$mid2.log" ||
  fail "the merge did not report the $unverified rows that did not verify"

# The merged file is the single run's, timing columns aside.
rows() { tail -n +2 "$1" | sed -E 's/(,[^,]*){3}$//'; }
cmp -s <(rows "$work/single.csv") <(rows "$work/out/sweep.csv") ||
  fail "merged rows differ from the single run's: $(diff <(rows "$work/single.csv") \
    <(rows "$work/out/sweep.csv") | head -n 5)"
echo "slurm_test: merged $(($(wc -l <"$work/out/sweep.csv") - 1)) rows = the single run's (timing aside)"
finish slurm_test
