#!/usr/bin/env bash
# Start a real one-machine Slurm cluster (munge + slurmctld + slurmd from Debian's
# packages) on this host, for the fleet tests: one partition per test node, each also
# offering one fake GPU of its own type (`--gres=gpu:<partition>:1`), so a job submitted
# the way `glossary verify submit --slurm` submits it is scheduled exactly as on a fleet.
#
#   tests/slurm/start-cluster.sh [--install] [--stop] [PARTITION...]
#
#   --install   apt-get the packages first (CI: a fresh Debian machine, run as root)
#   --stop      stop the daemons this script started (slurmd, slurmctld, and munged when
#               this script started it), and exit
#   PARTITION   partitions to define (default: node-a node-b node-c)
#
# Everything lives in $GLOSSARY_SLURM_DIR (default /tmp/glossary-slurm): config, state,
# logs, pid files. Clients find the cluster through SLURM_CONF=$GLOSSARY_SLURM_DIR/slurm.conf,
# which the script prints last. Running it again with the same partitions while the
# cluster is up does nothing. Exit status 0: the cluster answers and its node is idle;
# anything else: it could not start (the reason is on stderr).
set -euo pipefail

dir=${GLOSSARY_SLURM_DIR:-/tmp/glossary-slurm}
install=0
stop=0
partitions=()
for a in "$@"; do
  case $a in
    --install) install=1 ;;
    --stop) stop=1 ;;
    -*) echo "start-cluster.sh: unknown option $a" >&2; exit 64 ;;
    *) partitions+=("$a") ;;
  esac
done
[ ${#partitions[@]} -gt 0 ] || partitions=(node-a node-b node-c)

say() { echo "start-cluster.sh: $*" >&2; }
die() { say "$*"; exit 1; }

sudo_=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo_="sudo -n"
fi

# Stop only what this script started, by the pids it wrote.
stop_daemons() {
  for d in slurmd slurmctld; do
    local pidfile="$dir/$d.pid"
    if [ -f "$pidfile" ]; then
      local pid
      pid=$(cat "$pidfile")
      if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        $sudo_ kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      fi
      rm -f "$pidfile"
    fi
  done
}

# munged is shared with anything else on the machine that uses munge: stopped only when
# this script started it (it left $dir/munged.ours), by munged's own pid file.
stop_munged() {
  [ -f "$dir/munged.ours" ] || return 0
  local pidfile=/run/munge/munged.pid pid
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile")
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = munged ]; then
      $sudo_ kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  fi
  $sudo_ rm -f "$dir/munged.ours"
}

if [ $stop -eq 1 ]; then
  stop_daemons
  stop_munged
  say "stopped the cluster in $dir"
  exit 0
fi

if [ $install -eq 1 ]; then
  if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1 || ! command -v sbatch >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || [ -n "$sudo_" ] || die "--install needs root (or password-less sudo)"
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends \
      munge slurmctld slurmd slurm-client >/dev/null
  fi
fi

for b in munged munge unmunge slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$b" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
  command -v "$b" >/dev/null 2>&1 || die "cannot start: \`$b\` is not installed (apt-get install munge slurmctld slurmd slurm-client, or pass --install)"
done
# The daemons run as root here (SlurmUser=root), so the cluster needs root or sudo.
[ "$(id -u)" -eq 0 ] || [ -n "$sudo_" ] || die "cannot start: the daemons need root (or password-less sudo)"

export SLURM_CONF="$dir/slurm.conf"
# One start at a time: test runs in parallel share the cluster. The daemons are started
# with the lock's descriptor closed (9>&-): one that inherited it would hold the lock for
# as long as it runs, and every later start would wait on it.
$sudo_ mkdir -p "$dir"
exec 9>"$dir/start.lock"
flock -w 300 9 || die "cannot start: another start-cluster.sh has held $dir/start.lock for 5 minutes"

wanted="partitions=${partitions[*]}"

# Already up with these partitions? Then there is nothing to do.
if [ -f "$dir/partitions" ] && [ "$(cat "$dir/partitions")" = "$wanted" ] \
   && [ -f "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null \
   && [ -f "$dir/slurmd.pid" ] && kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null \
   && timeout 10 scontrol ping 2>/dev/null | grep -q "is UP"; then
  say "already running ($wanted)"
  echo "SLURM_CONF=$SLURM_CONF"
  exit 0
fi
stop_daemons

# munge: Slurm's authentication. Debian's package makes a key at install; make one if not.
if [ ! -s /etc/munge/munge.key ]; then
  $sudo_ mkdir -p /etc/munge
  $sudo_ sh -c 'dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null'
  $sudo_ chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  $sudo_ chmod 0400 /etc/munge/munge.key
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  $sudo_ mkdir -p /run/munge /var/log/munge /var/lib/munge
  $sudo_ chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  # munged refuses to run as root; run it as the package's munge user.
  if id munge >/dev/null 2>&1; then
    $sudo_ runuser -u munge -- munged 9>&- || die "cannot start: munged failed (see /var/log/munge/munged.log)"
  else
    $sudo_ munged --force 9>&- || die "cannot start: munged failed"
  fi
  $sudo_ mkdir -p "$dir"
  $sudo_ touch "$dir/munged.ours"
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null || die "cannot start: munge does not round-trip a credential"
fi

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 / 2 }' /proc/meminfo)
$sudo_ mkdir -p "$dir/state" "$dir/spool"
$sudo_ chmod 0755 "$dir"

# A GPU gres needs a device file (slurmd drops file-less GPUs and refuses plain files):
# each fake GPU is a character device with /dev/null's numbers, so opening one is harmless.
gres_types=()
gres_lines=""
$sudo_ rm -rf "$dir/fake-gpu"
$sudo_ mkdir -p "$dir/fake-gpu"
i=0
for p in "${partitions[@]}"; do
  $sudo_ mknod "$dir/fake-gpu/gpu$i" c 1 3 || die "cannot start: mknod for the fake GPU device failed"
  gres_types+=("gpu:$p:1")
  gres_lines+="NodeName=$host Name=gpu Type=$p File=$dir/fake-gpu/gpu$i"$'\n'
  i=$((i + 1))
done
gres_csv=$(IFS=,; echo "${gres_types[*]}")

$sudo_ tee "$dir/slurm.conf" >/dev/null <<CONF
# Written by tests/slurm/start-cluster.sh: a one-machine test cluster.
ClusterName=glossary-test
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=${GLOSSARY_SLURMCTLD_PORT:-16817}
SlurmdPort=${GLOSSARY_SLURMD_PORT:-16818}
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups: the test machine is a container; track processes the plain way.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
Waittime=0
# Each test node's partition offers one GPU of its own type, as a fleet's would.
GresTypes=gpu
NodeName=$host CPUs=$cpus RealMemory=$mem Gres=$gres_csv State=UNKNOWN
CONF
default=YES
for p in "${partitions[@]}"; do
  echo "PartitionName=$p Nodes=$host Default=$default MaxTime=INFINITE State=UP" | $sudo_ tee -a "$dir/slurm.conf" >/dev/null
  default=NO
done
printf '%s' "$gres_lines" | $sudo_ tee "$dir/gres.conf" >/dev/null

# Start from a clean state: no jobs left over from an earlier cluster in this folder.
$sudo_ rm -rf "$dir/state"/* "$dir/spool"/*
$sudo_ slurmctld -c -f "$SLURM_CONF" 9>&- || die "cannot start: slurmctld failed ($(tail -3 "$dir/slurmctld.log" 2>/dev/null))"
$sudo_ slurmd -f "$SLURM_CONF" 9>&- || die "cannot start: slurmd failed ($(tail -3 "$dir/slurmd.log" 2>/dev/null))"
echo "$wanted" | $sudo_ tee "$dir/partitions" >/dev/null

for _ in $(seq 120); do
  state=$(sinfo -h -n "$host" -o '%T' 2>/dev/null | sort -u | head -1 || true)
  case $state in
    idle* | inval* | drain*) break ;;
  esac
  sleep 0.5
done
state=$(sinfo -h -n "$host" -o '%T' 2>/dev/null | sort -u | head -1 || true)
case $state in
  idle*) ;;
  *) say "slurmctld log:"; tail -20 "$dir/slurmctld.log" >&2 || true
     say "slurmd log:"; tail -20 "$dir/slurmd.log" >&2 || true
     die "cannot start: node $host is '${state:-not listed}', not idle" ;;
esac
say "up: node $host, partitions ${partitions[*]}"
echo "SLURM_CONF=$SLURM_CONF"
